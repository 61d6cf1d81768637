import { realScheduler } from '../../../base/scheduler.js';
import { trickleBytes } from '../../../faults/deliver.js';
import type { JsonObject } from '../../../trace/jsonrpc.js';
import type { HttpResponseLike } from './http-types.js';
import { type Delivery, SseStream } from './sse.js';

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
  /**
   * An event stream's head waits a turn instead of going out at once, so a disconnect fault decided as the
   * requests arrive cuts the connection before any byte of an answer (set only when faults are injected).
   */
  deferHead?: boolean | undefined;
}

export class Reply {
  /** Tagged id keys of the requests still waiting for their response here. */
  private readonly pending = new Set<string>();
  private readonly collected: { message: JsonObject; how: Delivery | undefined }[] = [];
  private stream: SseStream | undefined;
  private finished = false;

  constructor(
    private readonly res: HttpResponseLike,
    private readonly options: ReplyOptions,
  ) {
    if (options.format === 'sse') {
      if (options.deferHead)
        setImmediate(() => {
          if (!this.finished) this.openStream();
        });
      else this.openStream();
    }
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

  /** The response to request `key` (`how`: as an injected fault changes it); the reply finishes with the last one. */
  respond(key: string, message: JsonObject, how?: Delivery): void {
    if (this.finished) return;
    this.pending.delete(key);
    if (this.stream) this.stream.send(message, how);
    else this.collected.push({ message, how });
    if (this.pending.size === 0) this.finish();
  }

  /** Cuts the connection this reply goes out on (an injected disconnect); nothing more is sent on it. */
  destroy(): void {
    if (this.finished) return;
    this.finished = true;
    this.res.destroy?.();
    this.options.onFinish(this);
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
    for (const { message, how } of this.collected.splice(0)) stream.send(message, how);
    return stream;
  }

  /** The collected responses as one JSON body (an array for a batch), trickled when a fault slows one down. */
  private sendJson(): void {
    const texts = this.collected.map(({ message, how }) => how?.text ?? JSON.stringify(message));
    const body = this.options.batch ? `[${texts.join(',')}]` : texts[0]!;
    this.res.writeHead(200, { 'content-type': 'application/json', ...this.options.headers });
    const rates = this.collected.flatMap(({ how }) => (how?.rate === undefined ? [] : [how.rate]));
    if (rates.length === 0) {
      this.res.end(body);
      return;
    }
    const res = this.res;
    const write = (piece: Uint8Array) => {
      if (!res.writableEnded) res.write(piece);
    };
    void trickleBytes(new TextEncoder().encode(body), Math.min(...rates), write, realScheduler).then(() => {
      if (!res.writableEnded) res.end();
    });
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    // An event stream whose head waited (deferHead) is one all the same.
    if (this.options.format === 'sse') this.openStream();
    if (this.stream) this.stream.end();
    else if (!this.res.headersSent && !this.res.writableEnded) {
      if (this.collected.length === 0) {
        this.res.writeHead(202, this.options.headers);
        this.res.end();
      } else this.sendJson();
    }
    this.options.onFinish(this);
  }
}
