import { PRODUCER } from '../../base/version.js';
import { isRecord } from '../decode.js';
import type { DiagnosticLog } from '../reader.js';
import { splitPath } from '../segments.js';
import type { EndLine, Json, MessageLine, MetaLine } from '../types.js';
import type { TraceEntry } from './opened.js';

/**
 * shack-session-replay trajectories: `{name, created_at, events: [{request, response, recorded_at}]}`. The on-disk
 * schema is not published, so close variants are accepted (`trajectory`/`steps` for the list, `timestamp`/`ts` for
 * times, `req`/`res`). Its requests often lack `id` and `jsonrpc`: ids 1..n are synthesized (skipping ids the file
 * already uses) and the response gets its request's id, so request/response pairing works like on a real trace.
 */

const LIST_KEYS = ['events', 'trajectory', 'steps', 'interactions', 'records', 'entries'];
const NAME_KEYS = ['name', 'label', 'session', 'title', 'id'];
const START_KEYS = ['created_at', 'createdAt', 'started_at', 'startedAt', 'timestamp', 'recorded_at'];
const TIME_KEYS = ['recorded_at', 'recordedAt', 'timestamp', 'ts', 'time', 't', 'created_at', 'createdAt'];
const DURATION_KEYS = ['duration_ms', 'durationMs', 'latency_ms', 'latencyMs', 'elapsed_ms'];
const REQUEST_KEYS = ['request', 'req'];
const RESPONSE_KEYS = ['response', 'res', 'reply'];

/** The event list of a trajectory document (or a bare array of events), or undefined when it is not one. */
function eventsOf(doc: unknown): unknown[] | undefined {
  const list = Array.isArray(doc)
    ? doc
    : isRecord(doc)
      ? LIST_KEYS.map((k) => doc[k]).find(Array.isArray)
      : undefined;
  if (!Array.isArray(list)) return undefined;
  const first: unknown = list[0];
  if (first === undefined) return isRecord(doc) ? list : undefined;
  return isRecord(first) && pick(first, REQUEST_KEYS) !== undefined ? list : undefined;
}

/** True for a shack-style trajectory document. */
export function isShackDocument(doc: unknown): boolean {
  return eventsOf(doc) !== undefined;
}

/**
 * Converts a parsed trajectory into trace lines. Events without a request object are reported and skipped.
 *
 * @example
 * shackToTrace({ name: 's', created_at: '2026-…', events: [{ request: { method: 'tools/call', params: {} },
 *   response: { result: {} }, recorded_at: '2026-…' }] }, 's.json', log)
 * // → meta {label: 's'}, in {jsonrpc: '2.0', method, params, id: 1}, out {jsonrpc: '2.0', id: 1, result}, end
 */
export function shackToTrace(
  doc: unknown,
  file: string,
  log: DiagnosticLog,
): { meta: MetaLine; entries: TraceEntry[] } {
  const events = eventsOf(doc) ?? [];
  const top = isRecord(doc) ? doc : {};
  const name = pick(top, NAME_KEYS);
  const startedAt = toIso(pick(top, START_KEYS)) ?? firstEventTime(events) ?? new Date(0).toISOString();
  const meta: MetaLine = {
    v: 1,
    type: 'meta',
    startedAt,
    label: typeof name === 'string' ? name : splitPath(file).name.replace(/\.[^.]*$/, ''),
    kind: 'mcp',
    producer: { ...PRODUCER },
    importedFrom: 'shack',
  };
  const ids = freshIds(events);
  const entries: TraceEntry[] = [];
  const counts = { in: 0, out: 0 };
  let last = startedAt;
  let seq = 0;
  for (const [index, event] of events.entries()) {
    const request = isRecord(event) ? pick(event, REQUEST_KEYS) : undefined;
    if (!isRecord(event) || !isRecord(request)) {
      log.report(
        'corrupt_line',
        'error',
        file,
        undefined,
        `event ${index + 1}: no "request" object; skipped`,
      );
      continue;
    }
    const t = toIso(pick(event, TIME_KEYS)) ?? last;
    const response = pick(event, RESPONSE_KEYS);
    const id = request.id ?? (isRecord(response) ? response.id : undefined) ?? ids.next(request.method);
    const raw: Record<string, unknown> = { jsonrpc: '2.0', ...request };
    if (id !== undefined) raw.id = id;
    const lineNo = index + 1;
    entries.push({ line: message(t, ++seq, 'in', raw), file, lineNo, segment: 0 });
    counts.in++;
    last = t;
    if (response === undefined || response === null) continue;
    const duration = pick(event, DURATION_KEYS);
    const answeredAt = typeof duration === 'number' ? new Date(Date.parse(t) + duration).toISOString() : t;
    const reply =
      isRecord(response) && ('result' in response || 'error' in response) ? response : { result: response };
    const out: Record<string, unknown> = { jsonrpc: '2.0', ...(id === undefined ? {} : { id }), ...reply };
    entries.push({ line: message(answeredAt, ++seq, 'out', out), file, lineNo, segment: 0 });
    counts.out++;
    last = answeredAt;
  }
  const durationMs = Math.max(0, Date.parse(last) - Date.parse(startedAt)) || 0;
  const end: EndLine = { t: last, type: 'end', durationMs, reason: 'imported', counts };
  entries.push({ line: end, file, lineNo: 0, segment: 0 });
  return { meta, entries };
}

function message(t: string, seq: number, dir: 'in' | 'out', raw: Record<string, unknown>): MessageLine {
  return { t, seq, dir, raw: raw as Json };
}

/** Ids 1, 2, … for requests that have none, skipping every id the file already uses. Notifications get none. */
function freshIds(events: unknown[]): { next(method: unknown): number | undefined } {
  const used = new Set<unknown>();
  for (const event of events) {
    if (!isRecord(event)) continue;
    for (const part of [pick(event, REQUEST_KEYS), pick(event, RESPONSE_KEYS)]) {
      if (isRecord(part) && part.id !== undefined) used.add(part.id);
    }
  }
  let n = 0;
  return {
    next(method) {
      if (typeof method === 'string' && method.startsWith('notifications/')) return undefined;
      do n++;
      while (used.has(n));
      return n;
    },
  };
}

function firstEventTime(events: unknown[]): string | undefined {
  const first: unknown = events[0];
  return isRecord(first) ? toIso(pick(first, TIME_KEYS)) : undefined;
}

function pick(value: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const key of keys) if (value[key] !== undefined) return value[key];
  return undefined;
}

/** An ISO-8601 UTC string from a date string or epoch number (seconds or milliseconds), or undefined. */
export function toIso(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) {
    return new Date(value < 1e11 ? value * 1000 : value).toISOString();
  }
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
