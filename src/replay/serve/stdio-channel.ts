import { realScheduler, type Scheduler } from '../../base/scheduler.js';
import { type FramedLine, LineFramer } from '../../capture/line-framer.js';
import { trickleBytes } from '../../faults/deliver.js';
import type { JsonObject } from '../../trace/jsonrpc.js';
import type { Json } from '../../trace/types.js';
import type { ReplayChannel } from '../engine/channel.js';

/**
 * The replay engine's channel over a byte stream pair (a stdio MCP server's stdin and stdout): newline-delimited
 * JSON, framed on bytes. Lines that are not JSON (a banner, a stray log) are skipped and reported, never fatal —
 * as the SDK's own stdio reader does. Output is written in order with backpressure: while the client does not
 * read, nothing more is read from it either.
 */

/** What the channel needs of its input: a Node readable (process.stdin, a socket, a PassThrough). */
export interface ByteReader {
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer) => void): unknown;
  once(event: 'end' | 'close', listener: () => void): unknown;
  once(event: 'error', listener: (error: Error) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  /** A Node readable's own flags: one already read to its end emits no 'end' or 'close' again. */
  readonly readableEnded?: boolean;
  readonly destroyed?: boolean;
}

/** What the channel needs of its output: a Node writable (a socket on fd 1, a PassThrough). */
export interface ByteWriter {
  readonly writable: boolean;
  write(chunk: string | Uint8Array): boolean;
  on(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

export interface StdioChannelOptions {
  /** Longer lines cannot be parsed without holding them whole: they are skipped (and reported) instead. */
  maxLineBytes?: number;
  /**
   * Pause after a `notifications/progress` before writing the next message. The SDK client handles notifications
   * a microtask later than responses, so progress that reaches it in the same read as the response is lost; as a
   * live server's progress is spread over time, replay keeps a small gap.
   */
  progressGapMs?: number;
  /** Messages queued for output past which reading input pauses (alongside the output's own backpressure). */
  maxQueued?: number;
  /** Told about every line that was not delivered. */
  onSkipped?: (line: SkippedLine) => void;
  /** Told when a message handler throws (the channel carries on). */
  onError?: (error: unknown) => void;
  /** @internal The clock a trickled answer's pieces are spaced on. */
  scheduler?: Scheduler | undefined;
}

/** A line of input the channel did not deliver. */
export type SkippedLine =
  | { reason: 'not-json'; text: string }
  | { reason: 'oversize'; size: number; maxLineBytes: number };

export const STDIO_CHANNEL_DEFAULTS = {
  maxLineBytes: 64 * 1024 * 1024,
  progressGapMs: 10,
  maxQueued: 1024,
} as const;

export interface StdioChannel extends ReplayChannel {
  /** Resolves when the input has ended (EOF), closed or failed. */
  readonly ended: Promise<void>;
  /** Resolves once everything sent so far is handed to the output (or the output has gone away). */
  flush(): Promise<void>;
  /** Stops reading input and drops later sends; what is already queued is still written. */
  close(): void;
  /** A line of text that is not JSON, in the place of `message` (an injected fault). */
  sendText(message: JsonObject, text: string): void;
  /** `message`, its bytes written at `bytesPerSecond` (an injected fault); later output waits behind it. */
  sendSlowly(message: JsonObject, bytesPerSecond: number): void;
}

interface Queued {
  text: string;
  progress: boolean;
  /** Written a piece at a time at this many bytes per second. */
  rate?: number | undefined;
}

/**
 * Joins a readable (client → us) and a writable (us → client) into a ReplayChannel.
 *
 * @example
 * const channel = stdioChannel(process.stdin, openStdout().stream, { onSkipped: (l) => console.error(l) });
 * const engine = new ReplayEngine(cassette, channel);
 * engine.start(); await channel.ended;
 */
export function stdioChannel(
  input: ByteReader,
  output: ByteWriter,
  options: StdioChannelOptions = {},
): StdioChannel {
  return new LineChannel(input, output, options);
}

/**
 * The channel behind {@link stdioChannel}: input framed into messages, output queued, paced and written with
 * backpressure. Its public methods are bound (front doors hand them on one by one).
 */
class LineChannel implements StdioChannel {
  readonly ended: Promise<void>;
  private readonly maxLineBytes: number;
  private readonly progressGapMs: number;
  private readonly maxQueued: number;
  private readonly handlers: ((message: Json) => void)[] = [];
  private readonly queue: Queued[] = [];
  private readonly flushWaiters: (() => void)[] = [];
  private readonly framer: LineFramer;
  private blocked = false;
  private gapUntil = 0;
  private gapScheduled = false;
  private gone = false;
  private closed = false;
  private reading = true;
  private trickling = false;

  constructor(
    private readonly input: ByteReader,
    private readonly output: ByteWriter,
    private readonly options: StdioChannelOptions,
  ) {
    this.maxLineBytes = options.maxLineBytes ?? STDIO_CHANNEL_DEFAULTS.maxLineBytes;
    this.progressGapMs = options.progressGapMs ?? STDIO_CHANNEL_DEFAULTS.progressGapMs;
    this.maxQueued = options.maxQueued ?? STDIO_CHANNEL_DEFAULTS.maxQueued;
    this.framer = new LineFramer({ maxLineBytes: this.maxLineBytes, onLine: (line) => this.onLine(line) });
    input.on('data', this.onData);
    this.ended = new Promise<void>((resolve) => {
      const finish = () => {
        if (!this.closed) this.framer.end();
        resolve();
      };
      input.once('end', finish);
      input.once('close', finish);
      input.once('error', () => resolve());
      // Read to its end before the session began (the cassette itself came from this stdin): EOF now.
      if (input.readableEnded === true || input.destroyed === true) finish();
    });
    output.on('error', () => {
      // The client went away (EPIPE): nothing more can reach it.
      this.gone = true;
      this.queue.length = 0;
      this.settleFlush();
    });
  }

  readonly send = (message: Json): void => {
    if (this.closed || this.gone) return;
    const progress =
      typeof message === 'object' &&
      message !== null &&
      !Array.isArray(message) &&
      message.method === 'notifications/progress';
    this.queue.push({ text: `${JSON.stringify(message)}\n`, progress });
    this.pump();
  };

  readonly onMessage = (handler: (message: Json) => void): void => {
    this.handlers.push(handler);
  };

  readonly sendText = (_message: JsonObject, text: string): void => {
    this.enqueue({ text: `${text}\n`, progress: false });
  };

  readonly sendSlowly = (message: JsonObject, bytesPerSecond: number): void => {
    this.enqueue({ text: `${JSON.stringify(message)}\n`, progress: false, rate: bytesPerSecond });
  };

  readonly flush = (): Promise<void> =>
    new Promise((resolve) => {
      this.flushWaiters.push(resolve);
      this.settleFlush();
    });

  readonly close = (): void => {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.pause();
    this.reading = false;
  };

  private readonly onData = (chunk: Buffer): void => {
    if (!this.closed) this.framer.push(chunk);
  };

  private onLine(line: FramedLine): void {
    const { options } = this;
    if (line.kind === 'oversize') {
      options.onSkipped?.({ reason: 'oversize', size: line.size, maxLineBytes: this.maxLineBytes });
      return;
    }
    const text = line.bytes.toString('utf8', 0, line.crlf ? line.bytes.length - 1 : line.bytes.length);
    if (text.trim() === '') return;
    let message: Json;
    try {
      message = JSON.parse(text) as Json;
    } catch {
      options.onSkipped?.({ reason: 'not-json', text });
      return;
    }
    this.deliver(message);
  }

  private deliver(message: Json): void {
    for (const handler of this.handlers) {
      try {
        handler(message);
      } catch (error) {
        this.options.onError?.(error);
      }
    }
  }

  /** Input is read only while output keeps up: a client that stops reading stops being read. */
  private updateReading(): void {
    const want = !this.closed && !this.blocked && this.queue.length < this.maxQueued;
    if (want === this.reading) return;
    this.reading = want;
    if (want) this.input.resume();
    else this.input.pause();
  }

  private settleFlush(): void {
    if (this.queue.length > 0 && !this.gone) return;
    if ((this.blocked || this.trickling) && !this.gone) return;
    for (const resolve of this.flushWaiters.splice(0)) resolve();
  }

  private pump(): void {
    const { queue, output } = this;
    while (queue.length > 0 && !this.blocked && !this.gone && !this.trickling) {
      const wait = this.gapUntil - Date.now();
      if (wait > 0) {
        if (!this.gapScheduled) {
          this.gapScheduled = true;
          setTimeout(() => {
            this.gapScheduled = false;
            this.pump();
          }, wait);
        }
        break;
      }
      const next = queue.shift()!;
      if (!output.writable) {
        this.gone = true;
        queue.length = 0;
        break;
      }
      if (next.rate !== undefined) {
        this.trickle(next.text, next.rate);
        break;
      }
      const ok = output.write(next.text);
      if (next.progress) this.gapUntil = Date.now() + this.progressGapMs;
      if (!ok) {
        this.blocked = true;
        const resume = () => {
          output.off('drain', resume);
          output.off('close', resume);
          this.blocked = false;
          this.pump();
        };
        output.once('drain', resume);
        output.once('close', resume);
      }
    }
    this.updateReading();
    this.settleFlush();
  }

  /** Writes one line a piece at a time; the queue waits behind it, as behind a slow socket. */
  private trickle(text: string, rate: number): void {
    const { output } = this;
    this.trickling = true;
    const bytes = new TextEncoder().encode(text);
    const scheduler = this.options.scheduler ?? realScheduler;
    void trickleBytes(bytes, rate, (piece) => output.writable && output.write(piece), scheduler).then(() => {
      this.trickling = false;
      this.pump();
    });
  }

  private enqueue(item: Queued): void {
    if (this.closed || this.gone) return;
    this.queue.push(item);
    this.pump();
  }
}
