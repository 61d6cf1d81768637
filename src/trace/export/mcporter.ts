import { isRecord } from '../decode.js';
import type { OpenedTrace, TraceEntry } from '../import/opened.js';
import type { EventLine, MessageLine, MetaLine } from '../types.js';

/**
 * Export to mcporter record NDJSON, the inverse of the mcporter import: each message's `raw` with
 * `_meta {dir: send|recv, server, ts}` merged in at the top level, and connect/disconnect events as
 * `$transport/start` / `$transport/close` lifecycle lines. The result can be replayed with `MCPORTER_REPLAY`.
 *
 * mcporter has no place for stderr, text, http or other recorder events: those are left out and reported through
 * `onDropped`. It cannot hold a JSON-RPC batch either: a batch is written as its messages, one line each.
 */

export interface McporterExportOptions {
  /** Called for each line that has no mcporter equivalent and is left out. */
  onDropped?: (entry: TraceEntry, reason: string) => void;
  /**
   * The server name written for lines that name none of their own — every line of a one-server recording. mcporter
   * replays by the name in its config (`everything`), which a trace's label (`server-everything`) may not be.
   */
  server?: string | undefined;
}

/** The lifecycle method an event stands for, if any. */
function lifecycleMethod(event: EventLine): string | undefined {
  if (typeof event.method === 'string' && event.method.startsWith('$transport/')) return event.method;
  if (event.name === 'connect') return '$transport/start';
  if (event.name === 'disconnect') return '$transport/close';
  return undefined;
}

/**
 * Streams a trace as mcporter NDJSON lines (each ending in `\n`). mcporter files open with `$transport/start` and
 * end with `$transport/close` per server; a trace with no lifecycle events of its own (a tapedeck stdio recording)
 * gets them synthesized at its start and end, so mcporter tooling sees the shape it writes itself.
 *
 * @example
 * const trace = await openTrace('calls.jsonl');
 * await writePrivateFile('calls.ndjson', toMcporter(trace, { onDropped: (e, why) => console.warn(why) }));
 */
export async function* toMcporter(
  trace: Pick<OpenedTrace, 'meta' | 'lines'>,
  options: McporterExportOptions = {},
): AsyncGenerator<string> {
  const meta = options.server === undefined ? trace.meta : { ...trace.meta, server: options.server };
  const withLifecycle = new Set<string>();
  const synthesized = new Set<string>();
  let last = meta.startedAt;
  let wroteAny = false;
  for await (const entry of trace.lines()) {
    const { line } = entry;
    if (line.type === 'end') {
      last = line.t;
      continue;
    }
    last = line.t;
    if (line.type === 'event') {
      const method = lifecycleMethod(line);
      if (method === undefined) {
        options.onDropped?.(entry, `event "${line.name}" has no mcporter equivalent`);
        continue;
      }
      const server = serverOf(line, meta);
      withLifecycle.add(server);
      if (method === '$transport/close') synthesized.delete(server);
      yield lifecycle(method, server, line.t, line.params);
      wroteAny = true;
      continue;
    }
    if (line.type !== undefined) {
      options.onDropped?.(entry, `${line.type} lines have no mcporter equivalent`);
      continue;
    }
    const server = serverOf(line, meta);
    if (!withLifecycle.has(server)) {
      withLifecycle.add(server);
      synthesized.add(server);
      yield lifecycle('$transport/start', server, wroteAny ? line.t : meta.startedAt);
    }
    const dir = line.dir === 'in' ? 'send' : 'recv';
    for (const message of Array.isArray(line.raw) ? line.raw : [line.raw]) {
      if (!isRecord(message)) {
        options.onDropped?.(entry, "a message that is not a JSON object cannot carry mcporter's _meta");
        continue;
      }
      yield encode({ ...message, _meta: { dir, server, ts: line.t } });
      wroteAny = true;
    }
  }
  for (const server of synthesized) yield lifecycle('$transport/close', server, last);
}

/** The server a line belongs to: its own `server`, else the trace's, else the trace label. */
function serverOf(line: MessageLine | EventLine, meta: MetaLine): string {
  if (typeof line.server === 'string') return line.server;
  return meta.server ?? meta.label;
}

function lifecycle(method: string, server: string, ts: string, params?: unknown): string {
  const body: Record<string, unknown> = { jsonrpc: '2.0', method };
  if (params !== undefined) body.params = params;
  body._meta = { dir: 'lifecycle', server, ts };
  return encode(body);
}

function encode(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
