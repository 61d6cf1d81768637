import type { JsonObject } from '../../../trace/jsonrpc.js';
import type { HttpResponseLike } from './http-types.js';
import { SseStream } from './sse.js';

/**
 * The answer to one POST that carried requests. `sse`: an event stream opened at once — the exchange's server
 * messages (progress, logs, server→client requests) as they come, then the response(s), then the end (what the
 * SDK's Streamable HTTP server does by default). `json`: the response(s) as one JSON body; for clients whose
 * `Accept` allows no event stream — their exchange's other messages go to the session's GET stream instead.
 * `auto`: JSON when nothing comes before the response, an event stream as soon as something does (what the
 * 2026-07-28-era server does).
 */

export type ReplyFormat = 'sse' | 'json' | 'auto';

export interface ReplyOptions {
  format: ReplyFormat;
  /** The POST body was a batch: a JSON answer is an array too. */
  batch: boolean;
  /** Sent with the response head (`mcp-session-id`). */
  headers: Record<string, string>;
  /** Names the stream in event ids (`<streamId>:<n>`). */
  streamId: string;
  maxHistory: number;
  progressGapMs: number;
  /** Called once, when every request got its response (or the reply was closed). */
  onFinish: (reply: Reply) => void;
}

export class Reply {
  /** Tagged id keys of the requests still waiting for their response here. */
  private readonly pending = new Set<string>();
  private readonly collected: JsonObject[] = [];
  private stream: SseStream | undefined;
  private finished = false;

  constructor(
    private readonly res: HttpResponseLike,
    private readonly options: ReplyOptions,
  ) {
    if (options.format === 'sse') this.openStream();
  }

  /** The event stream, once there is one (a resuming client reattaches to it). */
  get sse(): SseStream | undefined {
    return this.stream;
  }

  get streamId(): string {
    return this.options.streamId;
  }

  get done(): boolean {
    return this.finished;
  }

  /** A request of this POST, by tagged id key: its response goes here. */
  expect(key: string): void {
    this.pending.add(key);
  }

  holds(key: string): boolean {
    return this.pending.has(key);
  }

  /** A server message of this exchange; false when this reply cannot carry it (JSON, or already answered). */
  push(message: JsonObject): boolean {
    if (this.finished || this.options.format === 'json') return false;
    this.openStream().send(message);
    return true;
  }

  /** The response to request `key`; the reply finishes with the last one. */
  respond(key: string, message: JsonObject): void {
    if (this.finished) return;
    this.pending.delete(key);
    if (this.stream) this.stream.send(message);
    else this.collected.push(message);
    if (this.pending.size === 0) this.finish();
  }

  /** Request `key` will get no response (cancelled): stop waiting for it. */
  drop(key: string): void {
    if (this.finished || !this.pending.delete(key)) return;
    if (this.pending.size === 0) this.finish();
  }

  /** Ends the reply now (the session closed): whatever was collected goes out. */
  close(): void {
    this.finish();
  }

  private openStream(): SseStream {
    if (this.stream) return this.stream;
    const { streamId, maxHistory, progressGapMs } = this.options;
    const stream = new SseStream({ id: streamId, maxHistory, progressGapMs });
    this.stream = stream;
    stream.attach(this.res, this.options.headers);
    // Responses collected while the format was still open go first, in order.
    for (const message of this.collected.splice(0)) stream.send(message);
    return stream;
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.stream) this.stream.end();
    else if (!this.res.headersSent && !this.res.writableEnded) {
      if (this.collected.length === 0) {
        this.res.writeHead(202, this.options.headers);
        this.res.end();
      } else {
        const body = this.options.batch ? this.collected : this.collected[0];
        this.res.writeHead(200, { 'content-type': 'application/json', ...this.options.headers });
        this.res.end(JSON.stringify(body));
      }
    }
    this.options.onFinish(this);
  }
}
