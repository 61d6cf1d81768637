import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { TapedeckError } from '../base/errors.js';
import { isLinkError, linkRefusal, noFollowFlags } from '../base/no-follow.js';
import { makePrivateFolder } from '../base/private-files.js';
import type { TraceFiles } from './import/files.js';
import { openTraceWith } from './import/open.js';
import type { OpenedTrace, OpenTraceOptions, TraceEntry, TraceFormat } from './import/opened.js';
import type { TraceDiagnostic } from './reader.js';
import type { MetaLine } from './types.js';

/**
 * The one file under src/trace that touches node: modules: file access for the pure reader and importers, and
 * private (0600 / 0700) file writing. Everything else in src/trace runs in a browser too.
 */

/** Read chunk size: big enough for throughput, small enough that memory stays flat on multi-GB traces. */
const CHUNK_BYTES = 256 * 1024;

/** A trace read from a pipe is held in memory; past this it must be saved to a file first. */
const MAX_PIPED_BYTES = 1024 * 1024 * 1024;

/**
 * Local trace files whose `-` is the given standard input (the process's by default: {@link nodeTraceFiles}).
 *
 * Traces that are not regular files — `-`, `/dev/stdin`, a FIFO, a shell's `<(…)` — can be read only once, yet
 * opening a trace reads its head to detect the format and then reads it again: their bytes are read whole at the
 * first look and served from this object from then on. `fromPipe` says whether a path was read that way.
 *
 * @example const files = localTraceFiles(() => io.stdin); await openTrace('-', {}, files); files.fromPipe('-') // → true
 */
export function localTraceFiles(
  stdin: () => NodeJS.ReadableStream = () => process.stdin,
): TraceFiles & { fromPipe(path: string): boolean } {
  const piped = new Map<string, Buffer>();
  const readWhole = async (path: string): Promise<Buffer> => {
    const chunks: Buffer[] = [];
    let size = 0;
    const source: NodeJS.ReadableStream & { destroy?: () => void } =
      path === '-' ? stdin() : createReadStream(path);
    try {
      for await (const chunk of source) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        size += bytes.length;
        if (size > MAX_PIPED_BYTES) {
          source.destroy?.();
          throw new TapedeckError(
            'input',
            `${path} is over ${MAX_PIPED_BYTES / 1024 / 1024} MB read from a pipe: save it to a file and name that`,
          );
        }
        chunks.push(bytes);
      }
    } catch (err) {
      if (err instanceof TapedeckError) throw err;
      throw ioError(path, err);
    }
    return Buffer.concat(chunks, size);
  };
  return {
    fromPipe: (path) => piped.has(path),
    async check(path) {
      if (piped.has(path)) return;
      if (path === '-') {
        piped.set(path, await readWhole(path));
        return;
      }
      let info: Awaited<ReturnType<typeof stat>>;
      try {
        info = await stat(path);
      } catch (err) {
        throw ioError(path, err);
      }
      if (info.isDirectory()) {
        throw new TapedeckError(
          'is_directory',
          `${path} is a directory: expected a trace file (.jsonl, .ndjson or .json)`,
        );
      }
      if (!info.isFile()) piped.set(path, await readWhole(path));
    },
    async *read(path) {
      const held = piped.get(path);
      if (held !== undefined) {
        for (let at = 0; at < held.length; at += CHUNK_BYTES) yield held.subarray(at, at + CHUNK_BYTES);
        return;
      }
      // Breaking out of the caller's loop returns this generator, whose for-await destroys the stream.
      try {
        for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES }))
          yield chunk as Uint8Array;
      } catch (err) {
        throw ioError(path, err);
      }
    },
    async siblings(path) {
      // A pipe has no rotated segments next to it.
      if (piped.has(path)) return [];
      const dir = dirname(path);
      try {
        return (await readdir(dir)).map((name) => join(dir, name));
      } catch {
        return [];
      }
    },
  };
}

const processFiles = localTraceFiles();

/**
 * Whether `path` was read from a pipe (standard input, a FIFO) rather than a file through {@link nodeTraceFiles}:
 * known once the trace is open.
 *
 * @example (await openTrace('-'), readFromPipe('-')) // → true
 */
export function readFromPipe(path: string): boolean {
  return processFiles.fromPipe(path);
}

/** TraceFiles over the local file system; `-` is the process's standard input. */
export const nodeTraceFiles: TraceFiles = processFiles;

/**
 * TraceFiles over the local file system that never follow a symbolic link: the named file and every rotated
 * segment must be regular files (a link is refused, a segment that is a link is reported and left out). For traces
 * read from a folder that someone else may have put links in — `tapedeck mcp`'s data folder — and for traces about
 * to be rewritten in place, whose content would otherwise be copied in from wherever a link points.
 */
export const noFollowTraceFiles: TraceFiles = {
  async check(path) {
    let info: Awaited<ReturnType<typeof lstat>>;
    try {
      info = await lstat(path);
    } catch (err) {
      throw ioError(path, err);
    }
    if (info.isSymbolicLink()) throw linkRefusal(path);
    if (info.isDirectory()) {
      throw new TapedeckError(
        'is_directory',
        `${path} is a directory: expected a trace file (.jsonl, .ndjson or .json)`,
      );
    }
    if (!info.isFile())
      throw new TapedeckError(
        'io',
        `${path} is not a regular file (a pipe or a device): expected a trace file`,
      );
  },
  async *read(path) {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(path, noFollowFlags('read'));
    } catch (err) {
      throw ioError(path, err);
    }
    try {
      for await (const chunk of handle.createReadStream({ highWaterMark: CHUNK_BYTES, autoClose: false }))
        yield chunk as Uint8Array;
    } catch (err) {
      throw ioError(path, err);
    } finally {
      await handle.close();
    }
  },
  siblings: (path) => nodeTraceFiles.siblings(path),
};

/**
 * Opens a trace file of any supported format (detected from content; see TraceFormat). Rotated segments of a
 * tapedeck trace are found and stitched whichever segment is named. `files` is where the bytes come from: the file
 * system as it is (default), or {@link noFollowTraceFiles}.
 * Fails with TapedeckError `not_found`, `is_directory`, `io`, `unknown_format`, or in strict mode `corrupt_trace`.
 *
 * @example
 * const trace = await openTrace('recordings/calls.jsonl', { onDiagnostic: (d) => console.warn(d.message) });
 * console.log(trace.format, trace.meta.label, trace.segments.length);
 * for await (const { line } of trace.lines()) if (isMessageLine(line)) console.log(line.dir, line.raw);
 */
export function openTrace(
  path: string,
  options: OpenTraceOptions = {},
  files: TraceFiles = nodeTraceFiles,
): Promise<OpenedTrace> {
  return openTraceWith(files, path, options);
}

/** A whole trace in memory, for callers that need random access (replay cassettes, diff). */
export interface LoadedTrace {
  format: TraceFormat;
  meta: MetaLine;
  entries: TraceEntry[];
  diagnostics: readonly TraceDiagnostic[];
}

/**
 * Opens and reads a whole trace into memory. Prefer openTrace().lines() for big files.
 *
 * @example
 * const { meta, entries, diagnostics } = await loadTrace('cassette.jsonl', { mode: 'strict' });
 */
export async function loadTrace(
  path: string,
  options: OpenTraceOptions = {},
  files: TraceFiles = nodeTraceFiles,
): Promise<LoadedTrace> {
  const trace = await openTrace(path, options, files);
  const entries: TraceEntry[] = [];
  for await (const entry of trace.lines()) entries.push(entry);
  return { format: trace.format, meta: trace.meta, entries, diagnostics: trace.diagnostics };
}

/**
 * Writes text chunks to `path` privately and atomically: missing parent folders are created 0700, the file is
 * written 0600 under a temporary name and renamed into place, so a failed or interrupted write never leaves half a
 * file, and converting a file onto itself works.
 *
 * @example await writePrivateFile('out/trace.ndjson', toMcporter(trace));
 */
export async function writePrivateFile(
  path: string,
  chunks: AsyncIterable<string> | Iterable<string>,
): Promise<void> {
  const dir = dirname(path);
  try {
    makePrivateFolder(dir);
  } catch (err) {
    throw ioError(dir, err, 'cannot create folder');
  }
  const temp = join(dir, `.${basename(path)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  try {
    await pipeline(Readable.from(batch(chunks)), createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => {});
    if (err instanceof TapedeckError) throw err;
    throw ioError(path, err, 'cannot write');
  }
}

/**
 * Removes files that are no longer wanted (rotated segments merged into a rewritten trace); one already gone is
 * fine. Fails with TapedeckError `io` naming the first file that could not be removed.
 *
 * @example await removeFiles(['out/trace.1.jsonl', 'out/trace.2.jsonl']);
 */
export async function removeFiles(paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    try {
      await unlink(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw ioError(path, err, 'cannot remove');
    }
  }
}

/**
 * Joins small chunks (one per trace line) into ~64 KiB writes; one write per line is needlessly slow.
 *
 * @example for await (const block of batch(toTapedeck(trace))) process.stdout.write(block);
 */
export async function* batch(
  chunks: AsyncIterable<string> | Iterable<string>,
  size = 64 * 1024,
): AsyncGenerator<string> {
  let pending: string[] = [];
  let length = 0;
  for await (const chunk of chunks) {
    pending.push(chunk);
    length += chunk.length;
    if (length >= size) {
      yield pending.join('');
      pending = [];
      length = 0;
    }
  }
  if (length > 0) yield pending.join('');
}

/** Maps a node fs error to a one-line TapedeckError. */
function ioError(path: string, err: unknown, doing = 'cannot read'): TapedeckError {
  if (err instanceof TapedeckError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'ENOENT' && doing === 'cannot read') {
    return new TapedeckError('not_found', `no such trace file: ${path}`, { cause: err });
  }
  if (isLinkError(err)) return linkRefusal(path, err);
  if (code === 'EISDIR') {
    return new TapedeckError('is_directory', `${path} is a directory: expected a file`, { cause: err });
  }
  const reason =
    code === 'EACCES' || code === 'EPERM' ? 'permission denied' : String((err as Error)?.message ?? err);
  return new TapedeckError('io', `${doing} ${path}: ${reason}`, { cause: err });
}
