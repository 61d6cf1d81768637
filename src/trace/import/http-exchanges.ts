import { PRODUCER } from '../../version.js';
import { isRecord } from '../decode.js';
import type { DiagnosticLog } from '../reader.js';
import { splitPath } from '../segments.js';
import type { EndLine, HttpLine, Json, MetaLine, RecordLine } from '../types.js';
import type { TraceEntry } from './opened.js';

/**
 * HTTP exchange captures: a JSON array of `{method, url?, requestHeaders, requestBody, status, responseHeaders,
 * responseBody, label?}` (the shape of fixtures/interop/era2026/era2026-http-exchanges.json). Each exchange is its
 * own HTTP request, so it becomes its own `conn`: an `http` line per direction with the envelope facts, then the
 * JSON-RPC messages of the bodies. SSE bodies yield one message per `data:` event. There are no timestamps beyond
 * the response `date` header (whole seconds), so times are that, never going backwards.
 */

/** True for a non-empty array of objects that look like HTTP exchanges. */
export function isHttpExchanges(doc: unknown): doc is Record<string, unknown>[] {
  return (
    Array.isArray(doc) &&
    doc.length > 0 &&
    doc.every(
      (x) => isRecord(x) && typeof x.method === 'string' && ('requestBody' in x || 'responseBody' in x),
    )
  );
}

/**
 * Converts parsed exchanges into trace lines (transport `http`).
 *
 * @example
 * httpExchangesToTrace([{ method: 'POST', requestHeaders: {}, requestBody: { jsonrpc: '2.0', id: 1, method: 'ping' },
 *   status: 200, responseHeaders: { 'content-type': 'application/json' }, responseBody: '{"jsonrpc":"2.0","id":1,"result":{}}' }], 'x.json', log)
 * // → http in, message in, http out, message out, end
 */
export function httpExchangesToTrace(
  doc: Record<string, unknown>[],
  file: string,
  log: DiagnosticLog,
): { meta: MetaLine; entries: TraceEntry[] } {
  const epoch = new Date(0).toISOString();
  // A capture that says when each exchange started (a HAR file does) is timed by that, else by `date` headers.
  const times = doc.map((x) => (typeof x.startedAt === 'string' ? x.startedAt : dateOf(x.responseHeaders)));
  const startedAt = times.find((t) => t !== undefined) ?? epoch;
  const meta: MetaLine = {
    v: 1,
    type: 'meta',
    startedAt,
    label: splitPath(file).name.replace(/\.[^.]*$/, ''),
    kind: 'mcp',
    producer: { ...PRODUCER },
    transport: 'http',
    importedFrom: 'http-exchanges',
  };
  const entries: TraceEntry[] = [];
  const counts = { in: 0, out: 0, text: 0 };
  let seq = 0;
  let t = startedAt;
  for (const [index, x] of doc.entries()) {
    const at = times[index];
    if (at !== undefined && at > t) t = at;
    const conn = String(index + 1);
    const push = (line: RecordLine) => entries.push({ line, file, lineNo: index + 1, segment: 0 });
    const request: HttpLine = {
      t,
      seq: ++seq,
      type: 'http',
      conn,
      dir: 'in',
      method: String(x.method),
      headers: headers(x.requestHeaders),
    };
    if (typeof x.url === 'string') request.url = x.url;
    if (typeof x.label === 'string') request.label = x.label;
    push(request);
    for (const part of bodyParts(x.requestBody, x.requestHeaders)) {
      push(
        part.json
          ? { t, seq: ++seq, dir: 'in', raw: part.value, conn }
          : text(t, ++seq, 'in', part.text, conn),
      );
      counts[part.json ? 'in' : 'text']++;
    }
    // A capture that says when the answer came (a HAR file's timings) is timed by that from here on.
    if (typeof x.answeredAt === 'string' && x.answeredAt > t) t = x.answeredAt;
    const response: HttpLine = {
      t,
      seq: ++seq,
      type: 'http',
      conn,
      dir: 'out',
      headers: headers(x.responseHeaders),
    };
    if (typeof x.status === 'number') response.status = x.status;
    else log.report('corrupt_line', 'warning', file, undefined, `exchange ${index + 1}: no numeric "status"`);
    if (x.streamEnded !== undefined) response.streamEnded = x.streamEnded;
    push(response);
    for (const part of bodyParts(x.responseBody, x.responseHeaders)) {
      const line = part.json
        ? { t, seq: ++seq, dir: 'out' as const, raw: part.value, conn }
        : text(t, ++seq, 'out', part.text, conn);
      if (part.json && part.eventId !== undefined) line.eventId = part.eventId;
      push(line);
      counts[part.json ? 'out' : 'text']++;
    }
  }
  const durationMs = Math.max(0, Date.parse(t) - Date.parse(startedAt)) || 0;
  const end: EndLine = { t, type: 'end', durationMs, reason: 'imported', counts };
  entries.push({ line: end, file, lineNo: 0, segment: 0 });
  return { meta, entries };
}

type BodyPart = { json: true; value: Json; eventId?: string } | { json: false; text: string };

/** The JSON-RPC messages in a body: an object as is, a JSON string parsed, an SSE stream event by event. */
function bodyParts(body: unknown, head: unknown): BodyPart[] {
  if (body === undefined || body === null) return [];
  if (typeof body !== 'string') return [{ json: true, value: body as Json }];
  if (body.trim() === '') return [];
  const type = headers(head)['content-type'];
  const sse =
    (typeof type === 'string' && type.includes('text/event-stream')) || /^(event|data|id|:)/.test(body);
  if (!sse) return [parsePart(body)];
  return parseSse(body).map(({ data, id }) => {
    const part = parsePart(data);
    return part.json && id !== undefined ? { ...part, eventId: id } : part;
  });
}

function parsePart(text: string): BodyPart {
  try {
    return { json: true, value: JSON.parse(text) as Json };
  } catch {
    return { json: false, text };
  }
}

/** SSE events with data (priming events with an empty data field carry nothing and are dropped). */
export function parseSse(body: string): { data: string; id?: string }[] {
  const events: { data: string; id?: string }[] = [];
  for (const block of body.split(/\r?\n\r?\n/)) {
    const data: string[] = [];
    let id: string | undefined;
    for (const line of block.split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon === 0 || line === '') continue;
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
    }
    const joined = data.join('\n');
    if (joined.trim() !== '') events.push(id === undefined ? { data: joined } : { data: joined, id });
  }
  return events;
}

function text(t: string, seq: number, dir: 'in' | 'out', body: string, conn: string): RecordLine {
  return { t, seq, type: 'text', dir, text: body, conn };
}

function headers(value: unknown): Record<string, string | string[]> {
  return isRecord(value) ? (value as Record<string, string | string[]>) : {};
}

function dateOf(head: unknown): string | undefined {
  const date = headers(head).date;
  const ms = typeof date === 'string' ? Date.parse(date) : Number.NaN;
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
