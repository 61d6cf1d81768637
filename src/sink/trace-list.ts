import {
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { TapedeckError } from '../base/errors.js';
import { decodeLine } from '../trace/decode.js';
import { countFailures } from '../trace/jsonrpc.js';
import type { EndLine, MetaLine, TraceLine } from '../trace/types.js';

/**
 * Finding traces in a folder without reading them: a trace file's first line is its meta line and its last line
 * (once the recorder has finished) its end line, which carries the duration and the counts. Only those two ends
 * of each file are read, so a folder of multi-GB traces lists as fast as a folder of small ones.
 */

/** One trace of a folder (its rotated segments folded in). */
export interface ListedTrace {
  /** The active file: the one to open (the reader finds its older segments itself). */
  path: string;
  meta: MetaLine;
  /** Every file of the trace, the active one included. */
  files: string[];
  /** Bytes over every file of the trace. */
  size: number;
  /** The end line, when the recorder wrote one (a trace being recorded, or a killed recorder's, has none). */
  end: EndLine | undefined;
  /** Messages both ways; from the end line, else counted when the trace is small enough to read whole. */
  messages: number | undefined;
  /**
   * JSON-RPC error responses plus tool results with `isError` (as `tapedeck stats` counts errors); from the end
   * line, else counted when the trace is small enough to read whole.
   */
  errors: number | undefined;
  /** From the end line, else the time of the last line (a trace still being written, or cut off). */
  durationMs: number | undefined;
}

/** Read-only, and (where the platform has it) refusing a symlink swapped in since the folder was listed. */
const READ_NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);
/** How much of a file is read to find its first or last line. */
const EDGE_BYTES = 64 * 1024;
/** A meta line longer than this is not looked for (no recorder writes one). */
const HEAD_LIMIT = 1024 * 1024;
/** Traces without usable end counts are read whole up to this size to count their messages and errors. */
const SCAN_LIMIT = 2 * 1024 * 1024;

/**
 * The traces in `dir`, newest first (by `meta.startedAt`). Files that are not tapedeck / mcp-tape JSONL traces are
 * left out. A missing folder or a file in its place is a TapedeckError naming it.
 *
 * @example const [newest] = listTraces(defaultTraceDir());
 */
export function listTraces(dir: string): ListedTrace[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new TapedeckError('not_found', `no such folder: ${dir}`);
    if (code === 'ENOTDIR') throw new TapedeckError('usage', `${dir} is a file, not a folder of traces`);
    throw new TapedeckError('io', `cannot read ${dir}: ${code ?? (err as Error).message}`);
  }
  const byTrace = new Map<string, { meta: MetaLine; path: string; size: number; files: string[] }>();
  for (const entry of entries) {
    // A symlink is never followed: it could point out of the folder.
    if (!entry.isFile() || !entry.name.endsWith('.jsonl')) continue;
    const path = resolve(join(dir, entry.name));
    const head = readMeta(path);
    if (head === undefined) continue;
    // Rotated segments share the traceId; the active file holds the highest segment number.
    const key = head.meta.traceId !== undefined ? `id:${head.meta.traceId}` : `file:${path}`;
    const known = byTrace.get(key);
    if (known === undefined) {
      byTrace.set(key, { meta: head.meta, path, size: head.size, files: [path] });
      continue;
    }
    known.size += head.size;
    known.files.push(path);
    if ((head.meta.segment ?? 0) > (known.meta.segment ?? 0)) {
      known.meta = head.meta;
      known.path = path;
    }
  }
  const traces = [...byTrace.values()].map(({ meta, path, size, files }) =>
    describe(meta, path, size, files.sort()),
  );
  return traces.sort((a, b) => startedMs(b) - startedMs(a) || b.path.localeCompare(a.path));
}

/**
 * The newest trace of `dir`, or a TapedeckError saying the folder holds none.
 *
 * @example newestTrace('./traces').path // → '/abs/traces/20261201T191129.256Z-server-everything.jsonl'
 */
export function newestTrace(dir: string): ListedTrace {
  const [newest] = listTraces(dir);
  if (newest === undefined) throw new TapedeckError('not_found', `no traces in ${dir}`);
  return newest;
}

function startedMs(trace: ListedTrace): number {
  const ms = Date.parse(trace.meta.startedAt);
  return Number.isNaN(ms) ? 0 : ms;
}

/** The meta line and size of a file, or undefined when its first line is not a meta line. */
function readMeta(path: string): { meta: MetaLine; size: number } | undefined {
  let fd: number;
  try {
    fd = openSync(path, READ_NO_FOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return undefined;
    const size = stat.size;
    let text = '';
    for (let offset = 0; offset < Math.min(size, HEAD_LIMIT); offset += EDGE_BYTES) {
      const chunk = readAt(fd, offset, EDGE_BYTES);
      text += chunk;
      const newline = text.indexOf('\n');
      if (newline !== -1) return metaOf(text.slice(0, newline), size);
      if (chunk.length === 0) break;
    }
    return size <= HEAD_LIMIT ? metaOf(text, size) : undefined;
  } finally {
    closeSync(fd);
  }
}

function metaOf(text: string, size: number): { meta: MetaLine; size: number } | undefined {
  const decoded = decodeLine(text.trim());
  return decoded.kind === 'line' && decoded.line.type === 'meta' ? { meta: decoded.line, size } : undefined;
}

function readAt(fd: number, offset: number, length: number): string {
  const buffer = Buffer.alloc(length);
  const read = readSync(fd, buffer, 0, length, offset);
  return buffer.toString('utf8', 0, read);
}

/** Fills in what the end line (or, for a small trace without one, the whole file) says. */
function describe(meta: MetaLine, path: string, size: number, files: string[]): ListedTrace {
  const last = lastLine(path);
  const end = last?.type === 'end' ? last : undefined;
  const counts = end?.counts;
  const listed: ListedTrace = {
    path,
    meta,
    files,
    size,
    end,
    messages:
      counts?.in !== undefined || counts?.out !== undefined
        ? (counts.in ?? 0) + (counts.out ?? 0)
        : undefined,
    errors: counts?.errors !== undefined ? counts.errors + (counts.toolErrors ?? 0) : undefined,
    durationMs:
      end?.durationMs ?? sinceStart(meta, last === undefined || last.type === 'meta' ? undefined : last.t),
  };
  if ((listed.messages === undefined || listed.errors === undefined) && size <= SCAN_LIMIT) {
    const counted = countAll(files);
    listed.messages ??= counted.messages;
    listed.errors ??= counted.errors;
  }
  return listed;
}

function sinceStart(meta: MetaLine, t: string | undefined): number | undefined {
  if (t === undefined) return undefined;
  const ms = Date.parse(t) - Date.parse(meta.startedAt);
  return Number.isNaN(ms) ? undefined : Math.max(0, ms);
}

/** The last whole line of a file, decoded; undefined when it is not a trace line or too long to be an end line. */
function lastLine(path: string): TraceLine | undefined {
  let fd: number;
  try {
    fd = openSync(path, READ_NO_FOLLOW);
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - EDGE_BYTES);
    const text = readAt(fd, start, size - start).replace(/\r?\n$/, '');
    const newline = text.lastIndexOf('\n');
    if (newline === -1 && start > 0) return undefined;
    const decoded = decodeLine(text.slice(newline + 1));
    return decoded.kind === 'line' ? decoded.line : undefined;
  } finally {
    closeSync(fd);
  }
}

/** Messages and error responses over every line of the files (for small traces without end counts). */
function countAll(files: readonly string[]): { messages: number; errors: number } {
  let messages = 0;
  const failures = { errors: 0, toolErrors: 0 };
  for (const file of files) {
    let content: string;
    try {
      const fd = openSync(file, READ_NO_FOLLOW);
      try {
        content = readFileSync(fd, 'utf8');
      } finally {
        closeSync(fd);
      }
    } catch {
      continue;
    }
    for (const text of content.split('\n')) {
      if (text === '') continue;
      const decoded = decodeLine(text);
      if (decoded.kind !== 'line' || decoded.line.type !== undefined) continue;
      messages += 1;
      countFailures(decoded.line.raw, failures);
    }
  }
  return { messages, errors: failures.errors + failures.toolErrors };
}
