import { TapedeckError } from '../../errors.js';
import {
  type CompiledRules,
  compile,
  formatMarker,
  isMarker,
  MARKER_PREFIX,
  redactHeaders,
  redactJson,
  redactText,
} from '../../redact/index.js';
import { PRODUCER } from '../../version.js';
import type { OpenedTrace } from '../import/opened.js';
import type { HttpLine, MessageLine, MetaLine, TextLine } from '../types.js';

/**
 * Export of an HTTP trace — a recording (`record --upstream`, the bridge), an HTTP exchange capture, a HAR file —
 * to HAR 1.2, the HTTP Archive that browser developer tools and HTTP debuggers open. One entry per HTTP exchange
 * (a trace `stream`; a `conn` for lines that name no stream): the request and response heads, and bodies rebuilt
 * from the messages that travelled on the exchange: the JSON-RPC text of a JSON body, `id:` / `data:` events for
 * an event stream. Bodies tapedeck recorded only by their envelope (OAuth metadata, say) stay empty.
 *
 * Only a trace tapedeck recorded is known to be redacted, so every head, URL, query and body is redacted here
 * (the built-in rules unless told otherwise); markers redact to themselves, so what a recording hid stays as it
 * was hidden. Cookies appear only in their redacted headers. Times are the trace's, to the millisecond: `send`
 * ends with the request body, `wait` with the response head, `receive` with the last message of the response.
 */

/** How a HAR document is written. */
export interface HarOptions {
  /** The rules heads, URLs and bodies are redacted with; by default the built-in rules, as markers. */
  redact?: CompiledRules | undefined;
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

let builtIn: CompiledRules | undefined;

/** The built-in rules, compiled once. */
function builtInRules(): CompiledRules {
  builtIn ??= compile({ defaults: true, rules: [], mode: 'marker' });
  return builtIn;
}

/**
 * The HAR document of an HTTP trace. Fails with TapedeckError('input') for a trace that holds no HTTP exchange
 * (a stdio recording has no HTTP to show).
 *
 * @example
 * const trace = await openTrace('traces/remote.jsonl');
 * await writePrivateFile('remote.har', [await toHar(trace, 'traces/remote.jsonl')]);
 * // With a project's rules on top of the built-in ones:
 * await toHar(trace, 'remote', { redact: compile({ defaults: true, rules: projectRules, mode: 'marker' }) });
 */
export async function toHar(
  trace: Pick<OpenedTrace, 'meta' | 'lines'>,
  name = trace.meta.label,
  options: HarOptions = {},
): Promise<string> {
  const rules = options.redact ?? builtInRules();
  const open = new Map<string, Open>();
  const done: Open[] = [];
  for await (const { line } of trace.lines()) {
    if (line.type === 'http') {
      httpLine(line, open, done, trace.meta, rules);
      continue;
    }
    const body = line as MessageLine | TextLine;
    const key = exchangeOf(body);
    const exchange = key === undefined ? undefined : open.get(key);
    const part = exchange === undefined ? undefined : partOf(body, rules);
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
function partOf(line: MessageLine | TextLine, rules: CompiledRules): Part | undefined {
  if (line.type === 'text') {
    return typeof line.text === 'string' ? { text: redactText(line.text, rules) } : undefined;
  }
  if (line.type !== undefined || !('raw' in line)) return undefined;
  const text = JSON.stringify(redactJson(line.raw, rules));
  const eventId = typeof line.eventId === 'string' ? redactText(line.eventId, rules) : undefined;
  return { text, eventId };
}

function httpLine(
  line: HttpLine,
  open: Map<string, Open>,
  done: Open[],
  meta: MetaLine,
  rules: CompiledRules,
): void {
  const stream = line.stream ?? line.conn;
  const at = Date.parse(line.t);
  const heads = typeof line.headers === 'object' && line.headers !== null ? line.headers : {};
  if (line.dir === 'in') {
    const previous = open.get(stream);
    if (previous) done.push(previous);
    // A line without a URL was made by a capture that had none; the trace's own URL is then the best known.
    const url = redactUrl(line.url ?? meta.url ?? '', rules);
    open.set(stream, {
      entry: {
        startedDateTime: new Date(at).toISOString(),
        time: 0,
        request: {
          method: line.method ?? 'GET',
          url,
          httpVersion: 'HTTP/1.1',
          cookies: [],
          headers: harHeaders(redactHeaders(heads, rules)),
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
  exchange.entry.response.headers = harHeaders(redactHeaders(heads, rules));
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

/**
 * The URL with the value rules applied to it as written and to each query parameter as decoded (a token behind
 * `%20` or `+` is still found), and a parameter whose name falls under a key rule (`access_token`) hidden whole.
 * A parameter that changed is written back encoded, its markers as they are.
 */
function redactUrl(url: string, rules: CompiledRules): string {
  const text = redactText(url, rules);
  const { query, pairs } = splitQuery(text);
  if (query === undefined) return text;
  const written = pairs
    .map(({ name, value }) => {
      const key = hideQueryPart(name, rules);
      if (value === undefined) return key;
      const rule = rules.keys.match(decodeQuery(key));
      const decoded = decodeQuery(value);
      const hidden =
        rule !== undefined && decoded !== '' && !isMarker(decoded)
          ? formatMarker(rule, decoded, rules.style)
          : hideQueryPart(value, rules);
      return `${key}=${hidden}`;
    })
    .join('&');
  return `${text.slice(0, query.start)}${written}${text.slice(query.end)}`;
}

/** A query name or value, as written, with the value rules applied to its decoded form. */
function hideQueryPart(raw: string, rules: CompiledRules): string {
  const decoded = decodeQuery(raw);
  const hidden = redactText(decoded, rules);
  return hidden === decoded ? raw : encodeQuery(hidden);
}

interface QueryPair {
  name: string;
  value: string | undefined;
}

/** Where a URL's query is (after `?`, before `#`) and its `&`-separated pairs, as written. */
function splitQuery(url: string): { query?: { start: number; end: number }; pairs: QueryPair[] } {
  const mark = url.indexOf('?');
  if (mark < 0) return { pairs: [] };
  const hash = url.indexOf('#', mark);
  const query = { start: mark + 1, end: hash < 0 ? url.length : hash };
  const pairs = url
    .slice(query.start, query.end)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0
        ? { name: pair, value: undefined }
        : { name: pair.slice(0, eq), value: pair.slice(eq + 1) };
    });
  return { query, pairs };
}

function decodeQuery(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    // Not valid percent-encoding: the text is what was sent.
    return raw;
  }
}

/** Splits a text around its markers, keeping them. */
const MARKERS = /(\[REDACTED:[A-Za-z0-9_.:-]{1,80}\])/;

/** Percent-encodes a query part but leaves its markers readable (`[`, `:` and `]` pass in a query). */
function encodeQuery(text: string): string {
  return text
    .split(MARKERS)
    .map((piece) => (piece.startsWith(MARKER_PREFIX) ? piece : encodeURIComponent(piece)))
    .join('');
}
