import { TapedeckError } from '../../base/errors.js';
import { PRODUCER } from '../../base/version.js';
import type { OpenedTrace } from '../import/opened.js';
import type { HttpLine, Json, MessageLine, MetaLine, TextLine } from '../types.js';
import { decodeQuery, splitQuery } from './query.js';

/**
 * Export of an HTTP trace — a recording (`record --upstream`, the bridge), an HTTP exchange capture, a HAR file —
 * to HAR 1.2, the HTTP Archive that browser developer tools and HTTP debuggers open. One entry per HTTP exchange
 * (a trace `stream`; a `conn` for lines that name no stream): the request and response heads, and bodies rebuilt
 * from the messages that travelled on the exchange: the JSON-RPC text of a JSON body, `id:` / `data:` events for
 * an event stream. Bodies tapedeck recorded only by their envelope (OAuth metadata, say) stay empty.
 *
 * Only a trace tapedeck recorded is known to be redacted, so every head, URL, query and body passes through a
 * HarRedaction on its way in: the format knows where the values are, the redaction module (src/redact/har.ts,
 * `toHar`) knows how to hide them. Cookies appear only in their redacted headers. Times are the trace's, to the
 * millisecond: `send` ends with the request body, `wait` with the response head, `receive` with the last message
 * of the response.
 */

/** What a HAR document's values pass through before they are written: every head, URL, body and event id. */
export interface HarRedaction {
  /** A non-JSON body, an SSE event id. */
  text(value: string): string;
  /** A message's JSON. */
  json(value: Json): Json;
  headers(headers: HttpLine['headers']): HttpLine['headers'];
  /** A whole URL, its query included. */
  url(url: string): string;
}

interface HarHeader {
  name: string;
  value: string;
}

interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: never[];
    headers: HarHeader[];
    queryString: HarHeader[];
    postData?: { mimeType: string; text: string };
    headersSize: -1;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: never[];
    headers: HarHeader[];
    content: { size: number; mimeType: string; text?: string };
    redirectURL: string;
    headersSize: -1;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  /** The MCP session (`conn`) and the trace's name for the exchange (`stream`). */
  comment: string;
}

/** A body part: a message's JSON text (or a text line's text), redacted, and its SSE event id. */
interface Part {
  text: string;
  eventId?: string | undefined;
}

/** An exchange being put together from the trace's lines. */
interface Open {
  entry: HarEntry;
  started: number;
  /** When the request body had been sent (its last message). */
  sent: number | undefined;
  answered: number | undefined;
  last: number;
  requestBodies: Part[];
  responseBodies: Part[];
  responseType: string;
}

const encoder = new TextEncoder();

/**
 * The HAR document of an HTTP trace, every value passed through `redaction`. Fails with TapedeckError('input')
 * for a trace that holds no HTTP exchange (a stdio recording has no HTTP to show). Callers outside tapedeck use
 * `toHar`, which redacts with rules (the built-in ones by default).
 *
 * @example
 * const har = await buildHar(trace, 'remote.jsonl', harRedaction(rules));
 */
export async function buildHar(
  trace: Pick<OpenedTrace, 'meta' | 'lines'>,
  name: string,
  redaction: HarRedaction,
): Promise<string> {
  const open = new Map<string, Open>();
  const done: Open[] = [];
  for await (const { line } of trace.lines()) {
    if (line.type === 'http') {
      httpLine(line, open, done, trace.meta, redaction);
      continue;
    }
    const body = line as MessageLine | TextLine;
    const key = exchangeOf(body);
    const exchange = key === undefined ? undefined : open.get(key);
    const part = exchange === undefined ? undefined : partOf(body, redaction);
    if (exchange === undefined || part === undefined) continue;
    const at = Date.parse(line.t);
    exchange.last = Math.max(exchange.last, at);
    if (body.dir === 'in') {
      exchange.sent = Math.max(exchange.sent ?? at, at);
      exchange.requestBodies.push(part);
    } else {
      exchange.responseBodies.push(part);
    }
  }
  const entries = [...done, ...open.values()];
  if (entries.length === 0) {
    throw new TapedeckError(
      'input',
      `${name} holds no HTTP exchanges: HAR is for recordings made over HTTP (record --upstream URL)`,
    );
  }
  entries.sort((a, b) => a.started - b.started);
  const log = {
    log: {
      version: '1.2',
      creator: { name: PRODUCER.name, version: PRODUCER.version },
      pages: [],
      entries: entries.map(finish),
    },
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/**
 * The exchange a line travelled on: its `stream`, else its `conn` — an import that gives each exchange its own
 * connection may name no streams, and its `http` lines are then keyed by `conn` too.
 */
function exchangeOf(line: MessageLine | TextLine): string | undefined {
  const key = typeof line.stream === 'string' ? line.stream : line.conn;
  return typeof key === 'string' ? key : undefined;
}

/** A message's (or a non-JSON text's) part of a body, redacted; undefined for lines that carry no body. */
function partOf(line: MessageLine | TextLine, redaction: HarRedaction): Part | undefined {
  if (line.type === 'text') {
    return typeof line.text === 'string' ? { text: redaction.text(line.text) } : undefined;
  }
  if (line.type !== undefined || !('raw' in line)) return undefined;
  const text = JSON.stringify(redaction.json(line.raw));
  const eventId = typeof line.eventId === 'string' ? redaction.text(line.eventId) : undefined;
  return { text, eventId };
}

function httpLine(
  line: HttpLine,
  open: Map<string, Open>,
  done: Open[],
  meta: MetaLine,
  redaction: HarRedaction,
): void {
  const stream = line.stream ?? line.conn;
  const at = Date.parse(line.t);
  const heads = typeof line.headers === 'object' && line.headers !== null ? line.headers : {};
  if (line.dir === 'in') {
    const previous = open.get(stream);
    if (previous) done.push(previous);
    // A line without a URL was made by a capture that had none; the trace's own URL is then the best known.
    const url = redaction.url(line.url ?? meta.url ?? '');
    open.set(stream, {
      entry: {
        startedDateTime: new Date(at).toISOString(),
        time: 0,
        request: {
          method: line.method ?? 'GET',
          url,
          httpVersion: 'HTTP/1.1',
          cookies: [],
          headers: harHeaders(redaction.headers(heads)),
          queryString: queryOf(url),
          headersSize: -1,
          bodySize: 0,
        },
        response: {
          status: 0,
          statusText: '',
          httpVersion: 'HTTP/1.1',
          cookies: [],
          headers: [],
          content: { size: 0, mimeType: '' },
          redirectURL: '',
          headersSize: -1,
          bodySize: 0,
        },
        cache: {},
        timings: { send: 0, wait: 0, receive: 0 },
        comment: `conn ${line.conn} · stream ${stream}`,
      },
      started: at,
      sent: undefined,
      answered: undefined,
      last: at,
      requestBodies: [],
      responseBodies: [],
      responseType: '',
    });
    return;
  }
  const exchange = open.get(stream);
  if (exchange === undefined) return;
  exchange.answered = at;
  exchange.last = Math.max(exchange.last, at);
  exchange.entry.response.status = line.status ?? 0;
  exchange.entry.response.headers = harHeaders(redaction.headers(heads));
  exchange.responseType = headerOf(heads, 'content-type') ?? '';
}

/** The entry with its bodies and timings filled in. */
function finish(exchange: Open): HarEntry {
  const { entry } = exchange;
  if (exchange.requestBodies.length > 0) {
    const text = exchange.requestBodies.map((part) => part.text).join('\n');
    const mimeType = headerValue(entry.request.headers, 'content-type') ?? 'application/json';
    entry.request.postData = { mimeType, text };
    entry.request.bodySize = encoder.encode(text).length;
  }
  const text = responseText(exchange);
  const size = text === undefined ? 0 : encoder.encode(text).length;
  entry.response.content = {
    size,
    mimeType: exchange.responseType,
    ...(text === undefined ? {} : { text }),
  };
  entry.response.bodySize = text === undefined ? -1 : size;
  const answered = Math.max(exchange.started, exchange.answered ?? exchange.last);
  const sent = Math.min(Math.max(exchange.started, exchange.sent ?? exchange.started), answered);
  entry.timings = {
    send: sent - exchange.started,
    wait: answered - sent,
    receive: Math.max(0, exchange.last - answered),
  };
  entry.time = entry.timings.send + entry.timings.wait + entry.timings.receive;
  return entry;
}

/** The response body as the messages on the stream make it up: event-stream events, or one JSON text. */
function responseText(exchange: Open): string | undefined {
  const parts = exchange.responseBodies;
  if (parts.length === 0) return undefined;
  if (exchange.responseType.includes('text/event-stream')) {
    return parts.map(sseEvent).join('');
  }
  return parts.map((part) => part.text).join('\n');
}

/** One event of an event stream; a text of several lines takes a `data:` field per line. */
function sseEvent(part: Part): string {
  const id = part.eventId === undefined ? '' : `id: ${part.eventId}\n`;
  return `${id}${part.text
    .split(/\r?\n/)
    .map((line) => `data: ${line}\n`)
    .join('')}\n`;
}

function harHeaders(headers: HttpLine['headers']): HarHeader[] {
  const out: HarHeader[] = [];
  for (const [name, value] of Object.entries(headers)) {
    for (const one of Array.isArray(value) ? value : [value]) out.push({ name, value: one });
  }
  return out;
}

function headerOf(headers: HttpLine['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function headerValue(headers: HarHeader[], name: string): string | undefined {
  return headers.find((header) => header.name.toLowerCase() === name)?.value;
}

/** The query of a URL, absolute or not, as HAR's name/value pairs (decoded). */
function queryOf(url: string): HarHeader[] {
  return splitQuery(url).pairs.flatMap(({ name, value }) =>
    name === '' && value === undefined ? [] : [{ name: decodeQuery(name), value: decodeQuery(value ?? '') }],
  );
}
