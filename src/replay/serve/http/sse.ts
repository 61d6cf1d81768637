import { realScheduler } from '../../../base/scheduler.js';
import { trickleBytes } from '../../../faults/deliver.js';
import type { Json } from '../../../trace/types.js';
import type { HttpResponseLike } from './http-types.js';

/**
 * One Server-Sent Events stream: frames `event: message` with an `id:` per event (`<stream>:<n>`), keeps the last
 * events so a client that lost the connection can resume with `Last-Event-ID`, and outlives the HTTP response it
 * is written to — a resumed stream continues on a new one.
 *
 * After a `notifications/progress` the next frame waits a few ms: the SDK client handles notifications a microtask
 * later than responses, so progress that reaches it in the same read as the response is lost (its legacy SSE
 * client loses every one of them) — a live server's progress is spread over time anyway.
 */

export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

export interface SseStreamOptions {
  /** Names the stream in event ids; undefined: frames carry no ids (the legacy HTTP+SSE transport sends none). */
  id: string | undefined;
  /** Events kept for a client that resumes. */
  maxHistory: number;
  /** The pause after a progress notification. */
  progressGapMs: number;
}

/**
 * How a message goes out when a fault is about it: `text` in place of its JSON (malformed), or its frame trickling
 * at `rate` bytes per second (slow-stream).
 */
export interface Delivery {
  text?: string | undefined;
  rate?: number | undefined;
}

export class SseStream {
  private seq = 0;
  private readonly history: { seq: number; frame: string }[] = [];
  private readonly queue: { seq: number; frame: string; progress: boolean; rate: number | undefined }[] = [];
  private sink: HttpResponseLike | undefined;
  private gapUntil = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private ended = false;
  /** A frame is trickling out (an injected slow-stream): the next ones wait behind it. */
  private trickling = false;

  constructor(private readonly options: SseStreamOptions) {}

  get id(): string | undefined {
    return this.options.id;
  }

  /** True while an HTTP response carries the stream. */
  get connected(): boolean {
    return this.sink !== undefined;
  }

  /** True once the stream was ended (its last events may still be going out). */
  get done(): boolean {
    return this.ended;
  }

  /**
   * Starts writing to `res` (status 200, SSE headers plus `headers`); `replayAfter` first resends what went out
   * after that event number. On a stream that already ended, the response stays open after the replay: the caller
   * decides when to end it (a client whose resumed stream ends straight away reconnects again).
   */
  attach(res: HttpResponseLike, headers: Record<string, string> = {}, replayAfter?: number): void {
    const finished = this.ended && this.queue.length === 0;
    this.sink = finished ? undefined : res;
    res.writeHead(200, { ...SSE_HEADERS, ...headers });
    res.flushHeaders?.();
    res.on('close', () => {
      if (this.sink === res) this.sink = undefined;
    });
    if (replayAfter !== undefined)
      for (const item of this.history) if (item.seq > replayAfter) res.write(item.frame);
    this.pump();
  }

  /** Writes one raw frame now (the legacy `endpoint` event); not an event to resume. */
  writeRaw(frame: string): void {
    this.sink?.write(frame);
  }

  /** Sends one JSON-RPC message as an event (`how`: as an injected fault changes it). */
  send(message: Json, how?: Delivery): void {
    if (this.ended) return;
    const seq = ++this.seq;
    const idLine = this.options.id === undefined ? '' : `id: ${this.options.id}:${seq}\n`;
    const frame = `event: message\n${idLine}data: ${how?.text ?? JSON.stringify(message)}\n\n`;
    const progress =
      typeof message === 'object' &&
      message !== null &&
      !Array.isArray(message) &&
      message.method === 'notifications/progress';
    this.queue.push({ seq, frame, progress, rate: how?.rate });
    this.pump();
  }

  /** Cuts the response carrying the stream (an injected disconnect); the stream stays resumable. */
  destroy(): void {
    const sink = this.sink;
    this.sink = undefined;
    sink?.destroy?.();
  }

  /** No more events: the response ends once the queued ones went out. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.pump();
  }

  private pump(): void {
    if (this.trickling) return;
    while (this.queue.length > 0) {
      const wait = this.gapUntil - Date.now();
      if (wait > 0) {
        this.timer ??= setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, wait);
        return;
      }
      const item = this.queue.shift()!;
      // Kept whether or not a client is connected: one that resumes gets what it missed.
      if (this.options.id !== undefined) {
        this.history.push({ seq: item.seq, frame: item.frame });
        if (this.history.length > this.options.maxHistory) this.history.shift();
      }
      if (item.rate !== undefined && this.sink) {
        this.trickle(this.sink, item.frame, item.rate);
        return;
      }
      this.sink?.write(item.frame);
      if (item.progress) this.gapUntil = Date.now() + this.options.progressGapMs;
    }
    if (this.ended && this.sink) {
      const sink = this.sink;
      this.sink = undefined;
      if (!sink.writableEnded) sink.end();
    }
  }

  private trickle(sink: HttpResponseLike, frame: string, rate: number): void {
    this.trickling = true;
    const bytes = new TextEncoder().encode(frame);
    const write = (piece: Uint8Array) => {
      if (!sink.writableEnded) sink.write(piece);
    };
    void trickleBytes(bytes, rate, write, realScheduler).then(() => {
      this.trickling = false;
      this.pump();
    });
  }
}

/**
 * Reads a `Last-Event-ID` this server handed out: the stream and the event number.
 *
 * @example parseEventId('p3:2') // → { stream: 'p3', seq: 2 }
 */
export function parseEventId(value: string | undefined): { stream: string; seq: number } | undefined {
  if (value === undefined) return undefined;
  const at = value.lastIndexOf(':');
  const seq = Number(value.slice(at + 1));
  if (at <= 0 || !Number.isInteger(seq) || seq < 0) return undefined;
  return { stream: value.slice(0, at), seq };
}
