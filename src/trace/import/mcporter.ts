import { PRODUCER } from '../../base/version.js';
import { isRecord, show } from '../decode.js';
import { type DiagnosticLog, readJsonLines } from '../reader.js';
import { splitPath } from '../segments.js';
import type { EndLine, EventLine, Json, MessageLine, MetaLine } from '../types.js';
import type { TraceEntry } from './opened.js';

/**
 * mcporter record NDJSON: each line is the JSON-RPC message itself with mcporter's envelope merged in at the top
 * level as `_meta {dir: send|recv|lifecycle, server, ts}`. Only that top-level `_meta` is mcporter's: MCP messages
 * carry their own `params._meta` / `result._meta`, which stay untouched. `send` is client → server (`in`),
 * `recv` server → client (`out`); lifecycle lines (`$transport/start`, `$transport/close`) become events.
 */

export type McporterDir = 'send' | 'recv' | 'lifecycle';

const DIRS: readonly string[] = ['send', 'recv', 'lifecycle'];

/** Lifecycle methods and the event names they become (and come back from on export). */
export const LIFECYCLE_EVENTS: Readonly<Record<string, string>> = {
  '$transport/start': 'connect',
  '$transport/close': 'disconnect',
};

/** A line carrying mcporter's envelope. */
export function isMcporterRecord(
  value: unknown,
): value is Record<string, unknown> & { _meta: { dir: McporterDir } } {
  return isRecord(value) && isRecord(value._meta) && DIRS.includes(value._meta.dir as string);
}

/** What a first pass over the file learns, so the meta can be written before the lines stream. */
export interface McporterScan {
  /** Server names in order of first appearance. */
  servers: string[];
  firstTs?: string;
  /** Servers whose transport started more than once: their lines get a `conn` so ids don't pair across connections. */
  reconnected: Set<string>;
}

/** First pass: server names, first timestamp, reconnects. Constant memory; bad lines are left to the second pass. */
export async function scanMcporter(
  chunks: AsyncIterable<Uint8Array>,
  log: DiagnosticLog,
): Promise<McporterScan> {
  const scan: McporterScan = { servers: [], reconnected: new Set() };
  const starts = new Map<string, number>();
  for await (const { value } of readJsonLines(chunks, { file: '', log })) {
    if (!isMcporterRecord(value)) continue;
    const { ts, server } = value._meta as Record<string, unknown>;
    if (scan.firstTs === undefined && typeof ts === 'string') scan.firstTs = ts;
    if (typeof server !== 'string') continue;
    if (!scan.servers.includes(server)) scan.servers.push(server);
    if (value.method === '$transport/start') {
      const n = (starts.get(server) ?? 0) + 1;
      starts.set(server, n);
      if (n > 1) scan.reconnected.add(server);
    }
  }
  return scan;
}

/**
 * The meta an mcporter recording implies: label from the server name(s), start from the first timestamp.
 *
 * @example mcporterMeta({ servers: ['everything'], firstTs: '2026-…', reconnected: new Set() }, 'get-sum.ndjson')
 * // → { v: 1, type: 'meta', startedAt: '2026-…', label: 'everything', server: 'everything', kind: 'mcp', … }
 */
export function mcporterMeta(scan: McporterScan, file: string): MetaLine {
  const meta: MetaLine = {
    v: 1,
    type: 'meta',
    startedAt: scan.firstTs ?? new Date(0).toISOString(),
    label: scan.servers.length > 0 ? scan.servers.join(', ') : splitPath(file).name,
    kind: 'mcp',
    producer: { ...PRODUCER },
    importedFrom: 'mcporter',
  };
  if (scan.servers.length === 1) meta.server = scan.servers[0]!;
  return meta;
}

/**
 * Second pass: trace lines in file order with seq 1, 2, … and a closing `end` line (reason `imported`).
 * Lines without the envelope, or with an unknown `_meta.dir`, are reported with their line number.
 */
export async function* mcporterEntries(
  chunks: AsyncIterable<Uint8Array>,
  options: { file: string; log: DiagnosticLog; scan: McporterScan; maxLineBytes?: number },
): AsyncGenerator<TraceEntry> {
  const { file, log, scan } = options;
  const counts = { in: 0, out: 0, events: 0 };
  const starts = new Map<string, number>();
  const startedAt = scan.firstTs ?? new Date(0).toISOString();
  let last = startedAt;
  let seq = 0;
  const read =
    options.maxLineBytes === undefined ? { file, log } : { file, log, maxLineBytes: options.maxLineBytes };
  for await (const { value, lineNo } of readJsonLines(chunks, read)) {
    if (!isRecord(value) || !isRecord(value._meta)) {
      const why = 'not an mcporter line: expected a JSON-RPC object with _meta {dir, server, ts}';
      log.report('corrupt_line', 'error', file, lineNo, why);
      continue;
    }
    const { _meta: envelope, ...message } = value;
    const { dir, server, ts } = envelope as Record<string, unknown>;
    if (dir !== 'send' && dir !== 'recv' && dir !== 'lifecycle') {
      log.report(
        'corrupt_line',
        'error',
        file,
        lineNo,
        `_meta.dir must be "send", "recv" or "lifecycle", got ${show(dir)}`,
      );
      continue;
    }
    if (typeof ts === 'string') last = ts;
    else
      log.report(
        'bad_timestamp',
        'warning',
        file,
        lineNo,
        `_meta.ts must be a string, got ${show(ts)}; using ${last}`,
      );
    const where: { server?: string; conn?: string } = {};
    if (typeof server === 'string') {
      where.server = server;
      if (dir === 'lifecycle' && message.method === '$transport/start')
        starts.set(server, (starts.get(server) ?? 0) + 1);
      if (scan.reconnected.has(server)) where.conn = String(Math.max(1, starts.get(server) ?? 0));
    }
    seq++;
    if (dir === 'lifecycle') {
      counts.events++;
      yield { line: lifecycleEvent(last, seq, message, where), file, lineNo, segment: 0 };
    } else {
      const line: MessageLine = {
        t: last,
        seq,
        dir: dir === 'send' ? 'in' : 'out',
        raw: message as Json,
        ...where,
      };
      counts[line.dir]++;
      yield { line, file, lineNo, segment: 0 };
    }
  }
  const durationMs = Math.max(0, Date.parse(last) - Date.parse(startedAt)) || 0;
  const end: EndLine = { t: last, type: 'end', durationMs, reason: 'imported', counts };
  yield { line: end, file, lineNo: 0, segment: 0 };
}

/** `$transport/start` → event `connect`, `$transport/close` → `disconnect`, anything else → `lifecycle`. */
function lifecycleEvent(t: string, seq: number, message: Record<string, unknown>, where: object): EventLine {
  const method = typeof message.method === 'string' ? message.method : undefined;
  const event: EventLine = {
    t,
    seq,
    type: 'event',
    name: LIFECYCLE_EVENTS[method ?? ''] ?? 'lifecycle',
    ...where,
  };
  if (method !== undefined) event.method = method;
  if (message.params !== undefined) event.params = message.params;
  return event;
}
