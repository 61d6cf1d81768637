import { PRODUCER } from '../../base/version.js';
import { isRecord } from '../decode.js';
import type { DiagnosticLog } from '../reader.js';
import { splitPath } from '../segments.js';
import type { EndLine, HttpLine, Json, MessageLine, MetaLine, RecordLine } from '../types.js';
import type { TraceEntry } from './opened.js';

/**
 * HTTP exchange captures: a JSON array of `{method, url?, requestHeaders, requestBody, status, responseHeaders,
 * responseBody, label?}` (the shape of fixtures/interop/era2026/era2026-http-exchanges.json). Each exchange is its
 * own HTTP request, so it becomes its own `stream`: an `http` line per direction with the envelope facts, then the
 * JSON-RPC messages of the bodies. SSE bodies yield one message per `data:` event.
 *
 * Its `conn` is the MCP session, as the recording proxy files it: the request's `Mcp-Session-Id` (or a legacy SSE
 * POST's `sessionId` query parameter, or the session a legacy event stream's `endpoint` event names); a request that
 * names none (an `initialize`, a 2026-era stateless request) is a connection of its own, and when its answer opens a
 * session (`Mcp-Session-Id` in the response head) a `session` event says which — so verify and replay see the
 * recorded sessions again, not one per HTTP request.
 *
 * A capture that knows when things happened (a HAR file does) says so with ISO times: `startedAt` (the request
 * went out), `sentAt` (its body was sent), `answeredAt` (the response head came) and `endedAt` (the body ended:
 * the last message of the response is put there). Exchanges timed that way may overlap, and their lines are
 * interleaved by time. Otherwise the only clock is the response `date` header (whole seconds), and times are
 * that, in capture order, never going backwards.
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
  const first = doc.map((x) => msOf(x.startedAt) ?? dateOf(x.responseHeaders)).find((ms) => ms !== undefined);
  const timed: Timed[] = [];
  const counts = { in: 0, out: 0, text: 0, events: 0 };
  let floor = first ?? 0;
  for (const [index, x] of doc.entries()) {
    const start = msOf(x.startedAt) ?? Math.max(floor, dateOf(x.responseHeaders) ?? floor);
    floor = Math.max(floor, start);
    const sent = Math.max(start, msOf(x.sentAt) ?? start);
    const answered = Math.max(sent, msOf(x.answeredAt) ?? sent);
    const ended = Math.max(answered, msOf(x.endedAt) ?? answered);
    const stream = String(index + 1);
    const parts = bodyParts(x.responseBody, x.responseHeaders);
    const session = sessionOf(x.requestHeaders, x.url) ?? announcedSession(parts);
    const conn = session ?? stream;
    // seq is a placeholder until the lines of every exchange are in time order.
    const push = (ms: number, line: RecordLine) => timed.push({ ms, line, lineNo: index + 1 });
    const request: HttpLine = {
      t: iso(start),
      seq: 0,
      type: 'http',
      conn,
      stream,
      dir: 'in',
      method: String(x.method),
      headers: headers(x.requestHeaders),
    };
    if (typeof x.url === 'string') request.url = x.url;
    if (typeof x.label === 'string') request.label = x.label;
    push(start, request);
    for (const part of bodyParts(x.requestBody, x.requestHeaders)) {
      push(sent, bodyLine(iso(sent), 'in', part, conn, stream));
      counts[part.json ? 'in' : 'text']++;
    }
    const response: HttpLine = {
      t: iso(answered),
      seq: 0,
      type: 'http',
      conn,
      stream,
      dir: 'out',
      headers: headers(x.responseHeaders),
    };
    if (typeof x.status === 'number') response.status = x.status;
    else log.report('corrupt_line', 'warning', file, undefined, `exchange ${index + 1}: no numeric "status"`);
    if (x.streamEnded !== undefined) response.streamEnded = x.streamEnded;
    push(answered, response);
    const opened = session === undefined ? headerText(x.responseHeaders, 'mcp-session-id') : undefined;
    if (opened !== undefined) {
      push(answered, {
        t: iso(answered),
        seq: 0,
        type: 'event',
        name: 'session',
        conn,
        stream,
        sessionId: opened,
      });
      counts.events++;
    }
    for (const [i, part] of parts.entries()) {
      // Only the body's end is known: earlier events came after the head, the last one at the end.
      const at = i === parts.length - 1 ? ended : answered;
      push(at, bodyLine(iso(at), 'out', part, conn, stream));
      counts[part.json ? 'out' : 'text']++;
    }
  }
  // Stable: lines at the same time keep capture order, so an untimed capture reads exactly as it was written.
  timed.sort((a, b) => a.ms - b.ms);
  const startMs = timed[0]?.ms ?? 0;
  const meta: MetaLine = {
    v: 1,
    type: 'meta',
    startedAt: iso(startMs),
    label: splitPath(file).name.replace(/\.[^.]*$/, ''),
    kind: 'mcp',
    producer: { ...PRODUCER },
    transport: 'http',
    importedFrom: 'http-exchanges',
  };
  const entries: TraceEntry[] = timed.map(({ line, lineNo }, i) => {
    line.seq = i + 1;
    return { line, file, lineNo, segment: 0 };
  });
  const endMs = timed.at(-1)?.ms ?? startMs;
  const end: EndLine = {
    t: iso(endMs),
    type: 'end',
    durationMs: endMs - startMs,
    reason: 'imported',
    counts,
  };
  entries.push({ line: end, file, lineNo: 0, segment: 0 });
  return { meta, entries };
}

interface Timed {
  ms: number;
  line: RecordLine;
  lineNo: number;
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

/** A body part as a message line, or a text line when it is not JSON; filed under its session and exchange. */
function bodyLine(t: string, dir: 'in' | 'out', part: BodyPart, conn: string, stream: string): RecordLine {
  if (!part.json) return { t, seq: 0, type: 'text', dir, text: part.text, conn, stream };
  const line: MessageLine = { t, seq: 0, dir, raw: part.value, conn, stream };
  if (part.eventId !== undefined) line.eventId = part.eventId;
  return line;
}

/** The MCP session a request names: its `Mcp-Session-Id`, or a legacy SSE POST's `sessionId` query parameter. */
function sessionOf(head: unknown, url: unknown): string | undefined {
  return headerText(head, 'mcp-session-id') ?? legacySession(url);
}

/** The session a legacy SSE stream's `endpoint` event names (its first event: the POST URL with `sessionId`). */
function announcedSession(parts: readonly BodyPart[]): string | undefined {
  const first = parts[0];
  if (first === undefined) return undefined;
  return legacySession(first.json ? first.value : first.text);
}

function legacySession(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  const query = url.split('#', 1)[0]!.split('?')[1];
  if (query === undefined) return undefined;
  for (const pair of query.split('&')) {
    const [name, value] = pair.split('=');
    if (name === 'sessionId' && value) return decodeComponent(value);
  }
  return undefined;
}

function decodeComponent(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A header's value by lower-case name (HAR and captures may keep any case), the first of repeats. */
function headerText(head: unknown, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers(head))) {
    if (key.toLowerCase() !== name) continue;
    const one = Array.isArray(value) ? value[0] : value;
    if (typeof one === 'string' && one !== '') return one;
  }
  return undefined;
}

function headers(value: unknown): Record<string, string | string[]> {
  return isRecord(value) ? (value as Record<string, string | string[]>) : {};
}

/** Milliseconds since the epoch of the response `date` header, if it has a valid one. */
function dateOf(head: unknown): number | undefined {
  return msOf(headers(head).date);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function msOf(value: unknown): number | undefined {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
}
