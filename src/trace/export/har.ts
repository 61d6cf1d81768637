import { TapedeckError } from '../../errors.js';
import { PRODUCER } from '../../version.js';
import type { OpenedTrace } from '../import/opened.js';
import type { HttpLine, MessageLine } from '../types.js';

/**
 * Export of an HTTP recording (`record --upstream`, the bridge) to HAR 1.2, the HTTP Archive that browser
 * developer tools and HTTP debuggers open. One entry per HTTP exchange (a trace `stream`): the request and response
 * heads as recorded — credentials already redacted — and bodies rebuilt from the messages that travelled on the
 * stream: the JSON-RPC text of a JSON body, `id:` / `data:` events for an event stream. Bodies tapedeck recorded
 * only by their envelope (OAuth metadata, say) stay empty. Times are the trace's, to the millisecond.
 */

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

/** An exchange being put together from the trace's lines. */
interface Open {
  entry: HarEntry;
  started: number;
  answered: number | undefined;
  last: number;
  requestBodies: string[];
  responseBodies: MessageLine[];
  responseType: string;
}

const encoder = new TextEncoder();

/**
 * The HAR document of an HTTP trace. Fails with TapedeckError('input') for a trace that holds no HTTP exchange
 * (a stdio recording has no HTTP to show).
 *
 * @example
 * const trace = await openTrace('traces/remote.jsonl');
 * await writePrivateFile('remote.har', [await toHar(trace, 'traces/remote.jsonl')]);
 */
export async function toHar(
  trace: Pick<OpenedTrace, 'meta' | 'lines'>,
  name = trace.meta.label,
): Promise<string> {
  const open = new Map<string, Open>();
  const done: Open[] = [];
  for await (const { line } of trace.lines()) {
    if (line.type === 'http') {
      httpLine(line, open, done);
      continue;
    }
    if (line.type !== undefined || !('raw' in line)) continue;
    const message = line as MessageLine;
    const exchange = typeof message.stream === 'string' ? open.get(message.stream) : undefined;
    if (exchange === undefined) continue;
    exchange.last = Math.max(exchange.last, Date.parse(message.t));
    if (message.dir === 'in') exchange.requestBodies.push(JSON.stringify(message.raw));
    else exchange.responseBodies.push(message);
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

function httpLine(line: HttpLine, open: Map<string, Open>, done: Open[]): void {
  const stream = line.stream ?? line.conn;
  const at = Date.parse(line.t);
  if (line.dir === 'in') {
    const previous = open.get(stream);
    if (previous) done.push(previous);
    const url = line.url ?? '';
    open.set(stream, {
      entry: {
        startedDateTime: new Date(at).toISOString(),
        time: 0,
        request: {
          method: line.method ?? 'GET',
          url,
          httpVersion: 'HTTP/1.1',
          cookies: [],
          headers: harHeaders(line.headers),
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
  exchange.entry.response.headers = harHeaders(line.headers);
  exchange.responseType = headerOf(line.headers, 'content-type') ?? '';
}

/** The entry with its bodies and timings filled in. */
function finish(exchange: Open): HarEntry {
  const { entry } = exchange;
  if (exchange.requestBodies.length > 0) {
    const text = exchange.requestBodies.join('\n');
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
  const answered = exchange.answered ?? exchange.last;
  entry.timings = {
    send: 0,
    wait: Math.max(0, answered - exchange.started),
    receive: Math.max(0, exchange.last - answered),
  };
  entry.time = entry.timings.wait + entry.timings.receive;
  return entry;
}

/** The response body as the messages on the stream make it up: event-stream events, or one JSON text. */
function responseText(exchange: Open): string | undefined {
  const messages = exchange.responseBodies;
  if (messages.length === 0) return undefined;
  if (exchange.responseType.includes('text/event-stream')) {
    return messages
      .map(
        (m) =>
          `${typeof m.eventId === 'string' ? `id: ${m.eventId}\n` : ''}data: ${JSON.stringify(m.raw)}\n\n`,
      )
      .join('');
  }
  return messages.map((m) => JSON.stringify(m.raw)).join('\n');
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

function queryOf(url: string): HarHeader[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}
