import type { EventSourceMessage } from 'eventsource-parser';
import type { TraceSink } from '../../sink/sink.js';
import { timestamp } from '../../trace/encode.js';
import type { Direction, Json, MessageLine } from '../../trace/types.js';
import { BodyCopy, BodyHead, type CopiedBody } from './body.js';
import { type CopyDecoder, copyDecoder } from './decode.js';
import { type BodyKind, bodyKind, headerValue, mediaType, type TraceHeaders } from './headers.js';
import { SseTap } from './sse.js';
import { StatelessSessions } from './stateless.js';

export interface HttpRecorderOptions {
  sink: TraceSink;
  /** Trace copies of bodies and events larger than this become `truncated` events; forwarding is unaffected. */
  maxMessageBytes?: number;
  now?: () => number;
  /** Stateless (2026-07-28) traffic: a session tapedeck keys ends after this long without a request. */
  statelessIdleMs?: number;
}

/** The `producedBy` of a trace line for something tapedeck said itself, not the server. */
export const PRODUCED_BY = 'tapedeck';

export const HTTP_RECORDER_DEFAULTS = {
  maxMessageBytes: 16 * 1024 * 1024,
  /** How much of a body that is not JSON an event keeps, to say what came instead. */
  bodyHeadChars: 512,
} as const;

/** The request half of an HTTP exchange, as the trace should show it. */
export interface HttpRequestFacts {
  method: string;
  /** The URL as recorded (credentials in its query already hidden by the caller). */
  url: string;
  headers: TraceHeaders;
  /**
   * The MCP session: defaults to the `Mcp-Session-Id` header, then a legacy `sessionId` query parameter, then a
   * placeholder — the exchange's own stream id.
   */
  conn?: string;
  /** `messages` (default): bodies become message lines. `envelope`: only the `http` lines (e.g. OAuth traffic). */
  record?: 'messages' | 'envelope';
}

/** Callbacks for whoever forwards the bytes (a proxy rewriting the legacy `endpoint` event, say). */
export interface HttpExchangeHooks {
  /** Every complete SSE event of the response copy, priming and `endpoint` events included. */
  onSseEvent?: (event: EventSourceMessage) => void;
}

/**
 * Turns HTTP exchanges into trace lines on a sink: `http` lines for the envelopes (request method, URL and
 * headers; response status and headers — the sink's redactor hides credentials), message lines for JSON-RPC
 * bodies and for each event of an SSE answer (with `conn`, `stream` and `eventId`), and `event` lines for what
 * is neither. Each exchange gets a stream id (`h1`, `h2` …). Knows nothing of sockets: a proxy, a bridge or a
 * test feeds it the bytes (or already parsed messages) it saw.
 *
 * @example
 * const recorder = new HttpRecorder({ sink });
 * const x = recorder.exchange({ method: 'POST', url: 'http://127.0.0.1:3001/mcp', headers: { 'content-type': 'application/json' } });
 * x.requestChunk(body); x.requestEnd();
 * x.response(200, { 'content-type': 'text/event-stream' });
 * x.responseChunk(sseBytes); x.responseEnd(); x.close();
 */
export class HttpRecorder {
  private count = 0;
  readonly maxMessageBytes: number;
  readonly now: () => number;

  /** Sessions of stateless (2026-07-28) traffic, which names none on the wire. */
  readonly stateless: StatelessSessions;

  constructor(private readonly options: HttpRecorderOptions) {
    this.maxMessageBytes = options.maxMessageBytes ?? HTTP_RECORDER_DEFAULTS.maxMessageBytes;
    this.now = options.now ?? Date.now;
    this.stateless = new StatelessSessions(this.now, options.statelessIdleMs);
  }

  get sink(): TraceSink {
    return this.options.sink;
  }

  /** Starts an exchange: writes the request's `http` line and returns the recorder of its bodies. */
  exchange(request: HttpRequestFacts, hooks: HttpExchangeHooks = {}): HttpExchangeRecorder {
    this.count += 1;
    return new HttpExchangeRecorder(this, `h${this.count}`, request, hooks);
  }

  /** A recorder-level event (not tied to one exchange). */
  event(name: string, fields: Record<string, unknown> = {}): void {
    this.sink.append({ t: timestamp(this.now()), type: 'event', name, ...fields });
  }
}

/** One HTTP exchange's part of the trace. Feed it in the order the bytes moved; every method is cheap. */
export class HttpExchangeRecorder {
  /**
   * The MCP session this exchange's messages are filed under (see {@link HttpRequestFacts.conn}); for a stateless
   * (2026-07-28) request, the session key tapedeck gives it once its body is read.
   */
  conn: string;
  /** True when no session id was known for the request: `conn` is the stream id (or a stateless session key). */
  readonly placeholder: boolean;
  private readonly messages: boolean;
  private readonly requestKind: BodyKind;
  private readonly requestType: string;
  private requestCopy: BodyCopy | undefined;
  private responseKind: BodyKind = 'other';
  private responseType = '';
  private responseCopy: BodyCopy | undefined;
  /** Bodies that are neither JSON nor an event stream: their size and first bytes, for an event. */
  private readonly requestHead = new BodyHead(HTTP_RECORDER_DEFAULTS.bodyHeadChars);
  private readonly responseHead = new BodyHead(HTTP_RECORDER_DEFAULTS.bodyHeadChars);
  private status = 0;
  private decoder: CopyDecoder | undefined;
  private tap: SseTap | undefined;
  /** Legacy SSE: the session announced by this stream's `endpoint` event; later events are filed under it. */
  private session: string | undefined;
  private closed = false;

  constructor(
    private readonly recorder: HttpRecorder,
    readonly stream: string,
    private readonly request: HttpRequestFacts,
    private readonly hooks: HttpExchangeHooks,
  ) {
    this.messages = request.record !== 'envelope';
    const known =
      request.conn ?? headerValue(request.headers, 'mcp-session-id') ?? legacySessionOf(request.url);
    this.conn = known !== undefined && this.messages ? known : stream;
    this.placeholder = this.conn === stream;
    this.requestType = headerValue(request.headers, 'content-type') ?? '';
    this.requestKind = bodyKind(this.requestType);
    if (this.messages && this.requestKind === 'json')
      this.requestCopy = new BodyCopy(recorder.maxMessageBytes);
    this.append({
      type: 'http',
      conn: this.conn,
      stream,
      dir: 'in',
      method: request.method,
      url: request.url,
      headers: request.headers,
    });
  }

  /** A chunk of the request body, as forwarded. */
  requestChunk(chunk: Buffer): void {
    if (this.requestCopy) this.requestCopy.push(chunk);
    else this.requestHead.push(chunk);
  }

  /**
   * The request body ended: its JSON-RPC message (or batch) becomes an `in` line. Returns the parsed body, if
   * any (a proxy answering for an unreachable upstream needs the request id).
   */
  requestEnd(): Json | undefined {
    if (!this.messages) return undefined;
    if (!this.requestCopy) {
      this.other('in', this.requestType, this.requestHead);
      return undefined;
    }
    const body = this.requestCopy.end();
    this.requestCopy = undefined;
    return this.copied('in', body, this.requestType);
  }

  /** A message the caller already parsed, sent to the server (e.g. by a bridge that builds the POST itself). */
  requestMessage(raw: Json, rawText?: string): void {
    this.message('in', raw, rawText, undefined);
  }

  /** The response head: an `http` line, and the session an `initialize` answer opened. */
  response(status: number, headers: TraceHeaders): void {
    this.status = status;
    this.append({ type: 'http', conn: this.conn, stream: this.stream, dir: 'out', status, headers });
    const session = headerValue(headers, 'mcp-session-id');
    if (session !== undefined && this.placeholder && this.messages) {
      this.event('session', { sessionId: session, era: 'initialize' });
    }
    if (
      this.request.method === 'DELETE' &&
      status >= 200 &&
      status < 300 &&
      !this.placeholder &&
      this.messages
    ) {
      this.event('disconnect', { reason: 'session_deleted' });
    }
    if (!this.messages) return;
    this.responseType = headerValue(headers, 'content-type') ?? '';
    this.responseKind = bodyKind(this.responseType);
    const encoding = headerValue(headers, 'content-encoding');
    const sink = (chunk: Buffer) => this.decoded(chunk);
    this.decoder = copyDecoder(encoding, sink, (err) =>
      this.event('undecodable_body', { dir: 'out', encoding, error: err.message }),
    );
    if (this.decoder === undefined) {
      this.event('undecodable_body', { dir: 'out', encoding });
      return;
    }
    if (this.responseKind === 'json') this.responseCopy = new BodyCopy(this.recorder.maxMessageBytes);
    if (this.responseKind === 'sse') {
      this.tap = new SseTap(this.recorder.maxMessageBytes, {
        onEvent: (event) => this.sseEvent(event),
        onRetry: (ms) => this.event('sse_retry', { retryMs: ms }),
        onOversize: (limit) => this.event('truncated', { dir: 'out', limit }),
      });
    }
  }

  /** True once the response head showed an event stream whose events this recorder reads. */
  get readsEvents(): boolean {
    return this.tap !== undefined;
  }

  /**
   * An answer the proxy gave itself because the upstream gave none (unreachable, shutting down): its head and its
   * JSON-RPC message as the client received them, both marked `producedBy: 'tapedeck'` — no server sent them.
   */
  localAnswer(status: number, headers: TraceHeaders, body: string): void {
    this.status = status;
    this.append({
      type: 'http',
      conn: this.conn,
      stream: this.stream,
      dir: 'out',
      status,
      headers,
      producedBy: PRODUCED_BY,
    });
    const raw = this.messages ? parseJson(body) : undefined;
    if (raw !== undefined) this.message('out', raw, oneLine(body), undefined, PRODUCED_BY);
  }

  /** A chunk of the response body, as forwarded (still content-encoded). */
  responseChunk(chunk: Buffer): void {
    this.decoder?.write(chunk);
  }

  /** The response body ended normally. */
  responseEnd(): void {
    const decoder = this.decoder;
    this.decoder = undefined;
    decoder?.end(() => this.finishResponse());
  }

  /** A message the caller already parsed, from the server (`eventId` when it came as an SSE event with an id). */
  responseMessage(raw: Json, rawText?: string, eventId?: string): void {
    this.message('out', raw, rawText, eventId);
  }

  /** An event line filed under this exchange's conn and stream. */
  event(name: string, fields: Record<string, unknown> = {}): void {
    this.append({ type: 'event', name, conn: this.session ?? this.conn, stream: this.stream, ...fields });
  }

  /** The exchange is over (ended, failed or cut short): a legacy SSE stream's end closes its session. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.decoder?.destroy();
    this.decoder = undefined;
    if (this.session !== undefined) this.event('disconnect', { reason: 'stream_closed' });
  }

  private decoded(chunk: Buffer): void {
    if (this.tap) this.tap.push(chunk);
    else if (this.responseCopy) this.responseCopy.push(chunk);
    else this.responseHead.push(chunk);
  }

  private finishResponse(): void {
    if (this.tap) {
      this.tap.end();
      this.tap = undefined;
    } else if (this.responseCopy) {
      const body = this.responseCopy.end();
      this.responseCopy = undefined;
      this.copied('out', body, this.responseType);
    } else {
      this.other('out', this.responseType, this.responseHead);
    }
  }

  private sseEvent(event: EventSourceMessage): void {
    this.hooks.onSseEvent?.(event);
    if (event.event === 'endpoint') {
      this.session = legacySessionOf(event.data.trim()) ?? this.session;
      this.event('endpoint', { url: event.data });
      return;
    }
    // Priming events (an id, empty data) only give the client a point to resume from.
    if (event.data.trim() === '') return;
    const parsed = parseJson(event.data);
    if (parsed === undefined) {
      this.notJson('out', 'text/event-stream', event.data.length, event.data, event.id);
      return;
    }
    this.message('out', parsed, oneLine(event.data), event.id);
  }

  /** A copied body: a JSON value becomes a message line; anything else an event. */
  private copied(dir: Direction, body: CopiedBody, contentType: string): Json | undefined {
    if (body.kind === 'empty') return undefined;
    if (body.kind === 'oversize') {
      this.event('truncated', { dir, size: body.size, sha256: body.sha256 });
      return undefined;
    }
    const parsed = parseJson(body.text);
    if (parsed === undefined) {
      this.notJson(dir, contentType, body.size, body.text);
      return undefined;
    }
    this.message(dir, parsed, oneLine(body.text), undefined);
    return parsed;
  }

  /** A body that is not a message: an event with its size, and its start when it is text. */
  private other(dir: Direction, contentType: string, head: BodyHead): void {
    if (head.size === 0) return;
    const text = /^text\/|[/+]json$|[/+]xml$/.test(mediaType(contentType)) ? head.text() : undefined;
    this.notJson(dir, contentType, head.size, text);
  }

  private notJson(
    dir: Direction,
    contentType: string,
    size: number,
    text: string | undefined,
    eventId?: string,
  ): void {
    // A 202 carries no message by definition; some servers still say "Accepted" in its body.
    if (dir === 'out' && this.status === 202) return;
    const fields: Record<string, unknown> = { dir, contentType: mediaType(contentType), size };
    if (eventId !== undefined) fields.eventId = eventId;
    const shown = text ?? '';
    if (shown !== '') fields.head = shown.slice(0, HTTP_RECORDER_DEFAULTS.bodyHeadChars);
    this.event('non_json_body', fields);
  }

  private message(
    dir: Direction,
    raw: Json,
    rawText: string | undefined,
    eventId: string | undefined,
    producedBy?: string,
  ): void {
    if (dir === 'in' && this.placeholder && this.conn === this.stream) this.keyStateless(raw);
    const line: Omit<MessageLine, 'seq'> = {
      t: timestamp(this.recorder.now()),
      dir,
      raw,
      conn: dir === 'out' ? (this.session ?? this.conn) : this.conn,
      stream: this.stream,
    };
    if (eventId !== undefined) line.eventId = eventId;
    if (producedBy !== undefined) line.producedBy = producedBy;
    this.recorder.sink.append(line, rawText);
  }

  /**
   * A request with no session, in the stateless era (its `_meta` names the protocol version): filed under the
   * session key the recorder gives its client, announced once with a `session` event that says the era.
   */
  private keyStateless(raw: Json): void {
    const session = this.recorder.stateless.keyOf(this.request.headers, raw);
    if (session === undefined) return;
    this.conn = session.id;
    if (session.announce !== undefined) this.event('session', session.announce);
  }

  private append(fields: Record<string, unknown> & { type: 'http' | 'event' }): void {
    this.recorder.sink.append({ t: timestamp(this.recorder.now()), ...fields } as never);
  }
}

/**
 * The legacy HTTP+SSE transport names its session in the POST URL's query (`/message?sessionId=…`).
 *
 * @example legacySessionOf('/message?sessionId=abc') // → 'abc'
 */
export function legacySessionOf(url: string): string | undefined {
  const query = url.indexOf('?');
  if (query < 0) return undefined;
  const params = new URLSearchParams(url.slice(query + 1).split('#', 1)[0]);
  return params.get('sessionId') ?? params.get('session_id') ?? undefined;
}

function parseJson(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

/** The wire text may stand in for `raw` in the trace only when it is a single line. */
function oneLine(text: string): string | undefined {
  return /[\r\n]/.test(text) ? undefined : text.trim();
}
