import { TapedeckError } from '../base/errors.js';
import { realScheduler, type Scheduler, type Timer } from '../base/scheduler.js';
import { collectorBase, createLiveTrace, errorText } from './collector-client.js';

/**
 * Sends encoded trace lines to a live trace on a collector, in batches, without ever making the recording wait:
 * `push` only queues. A bounded queue absorbs a slow or absent collector; past it lines are dropped and counted,
 * and the count is reported as a `dropped` event line once lines flow again. Failed posts are retried with
 * exponential backoff (honouring Retry-After); the collector skips lines it already has, so a retried batch is
 * never stored twice.
 */

export interface CollectorPosterOptions {
  /** The collector's base URL. */
  url: string;
  token: string;
  /** The live trace to append to; created on the first send when missing. */
  traceId?: string | undefined;
  /** Label for a trace created on the first send. */
  label?: string | undefined;
  /** Lines per POST at most. */
  batchLines?: number;
  /** Bytes per POST at most (a single longer line still goes alone). */
  batchBytes?: number;
  /** How long a line may wait for companions before its batch goes out. */
  flushMs?: number;
  /** Lines waiting at most; further lines are dropped and counted. */
  maxQueueLines?: number;
  maxQueueBytes?: number;
  retryMinMs?: number;
  retryMaxMs?: number;
  /** How long close() keeps trying to deliver what is queued. */
  closeTimeoutMs?: number;
  /** One fetch may take this long. */
  requestTimeoutMs?: number;
  /** Encodes the `dropped` event line for `count` lost lines (it takes a seq from the sink), or undefined. */
  droppedLine?: (count: number) => string | undefined;
  /** Where the one-per-kind warnings go. */
  warn?: (message: string) => void;
  fetch?: typeof fetch;
  /** @internal The clock batching, backoff and the close deadline run on (see src/base/scheduler.ts). */
  scheduler?: Scheduler;
}

export const COLLECTOR_POSTER_DEFAULTS = {
  batchLines: 500,
  batchBytes: 1024 * 1024,
  flushMs: 25,
  maxQueueLines: 20_000,
  maxQueueBytes: 32 * 1024 * 1024,
  retryMinMs: 100,
  retryMaxMs: 5000,
  closeTimeoutMs: 5000,
  requestTimeoutMs: 15_000,
} as const;

/** What happened to the lines handed over. */
export interface PosterStats {
  sent: number;
  dropped: number;
  retries: number;
}

type Outcome = 'ok' | 'retry' | 'give_up';

export class CollectorPoster {
  readonly stats: PosterStats = { sent: 0, dropped: 0, retries: 0 };
  private readonly o: Required<
    Omit<CollectorPosterOptions, 'traceId' | 'label' | 'droppedLine' | 'fetch' | 'scheduler'>
  > &
    CollectorPosterOptions;
  private readonly clock: Scheduler;
  private traceId: string | undefined;
  private queue: string[] = [];
  private queuedBytes = 0;
  /** Dropped and not yet reported in an event line. */
  private unreported = 0;
  private pumping = false;
  private timer: Timer | undefined;
  private deadline = Number.POSITIVE_INFINITY;
  private closed = false;
  private idle: (() => void) | undefined;
  /** Ends the current backoff early (close). */
  private wake: (() => void) | undefined;
  /** The request in flight, aborted when close() runs out of time. */
  private inflight: AbortController | undefined;
  private readonly warned = new Set<string>();

  constructor(options: CollectorPosterOptions) {
    this.o = {
      ...COLLECTOR_POSTER_DEFAULTS,
      warn: (message) => process.stderr.write(`tapedeck: ${message}\n`),
      ...options,
      url: collectorBase(options.url),
    };
    this.traceId = options.traceId;
    this.clock = options.scheduler ?? realScheduler;
  }

  /** The live trace's id, once known. */
  get id(): string | undefined {
    return this.traceId;
  }

  /**
   * Queues one encoded line (with or without its newline). Never blocks, never throws. An `essential` line (the
   * meta and end lines) is queued even when the queue is full: without them the live trace is not a trace.
   */
  push(text: string, essential = false): void {
    if (this.closed) return;
    const line = text.endsWith('\n') ? text : `${text}\n`;
    const full =
      this.queue.length >= this.o.maxQueueLines || this.queuedBytes + line.length > this.o.maxQueueBytes;
    if (full && !essential) {
      this.drop(1);
      return;
    }
    this.queue.push(line);
    this.queuedBytes += line.length;
    if (this.queue.length >= this.o.batchLines || this.queuedBytes >= this.o.batchBytes) this.kick(0);
    else this.kick(this.o.flushMs);
  }

  /** Lines dropped and not yet reported: reported now (the sink calls this before its end line). */
  reportDrops(): void {
    if (this.unreported === 0 || this.closed) return;
    const text = this.o.droppedLine?.(this.unreported);
    this.unreported = 0;
    if (text !== undefined) {
      const line = text.endsWith('\n') ? text : `${text}\n`;
      this.queue.push(line);
      this.queuedBytes += line.length;
    }
  }

  /** Delivers what is queued (giving up after `closeTimeoutMs`), then accepts nothing more. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.deadline = this.clock.now() + this.o.closeTimeoutMs;
    this.wake?.();
    if (this.queue.length > 0 || this.pumping) {
      await new Promise<void>((resolve) => {
        // Not unref'd: a closing recorder may have nothing else left to keep it running (its server stopped, its
        // stdin closed), and it must still deliver the last lines — or give up at the deadline.
        const timer = this.clock.setTimeout(() => {
          this.inflight?.abort();
          resolve();
        }, this.o.closeTimeoutMs);
        this.idle = () => {
          this.clock.clearTimeout(timer);
          resolve();
        };
        this.kick(0);
      });
    }
    this.closed = true;
    this.clock.clearTimeout(this.timer);
    this.queuedBytes = 0;
    this.drop(this.queue.splice(0).length);
  }

  private drop(count: number): void {
    if (count === 0) return;
    this.stats.dropped += count;
    this.unreported += count;
    this.warnOnce('dropped', `live view: the collector is not keeping up; lines are being dropped from it`);
  }

  private kick(delay: number): void {
    if (this.pumping) return;
    if (this.timer !== undefined) {
      if (delay > 0) return;
      this.clock.clearTimeout(this.timer);
    }
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = undefined;
        void this.pump();
      },
      delay,
      { unref: true },
    );
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      let attempt = 0;
      while (this.queue.length > 0) {
        if (this.clock.now() > this.deadline) break;
        const count = this.batchSize();
        const outcome = await this.send(this.queue.slice(0, count).join(''));
        if (outcome === 'retry') {
          attempt += 1;
          this.stats.retries += 1;
          await this.backoff(attempt);
          continue;
        }
        attempt = 0;
        const batch = this.queue.splice(0, count);
        this.queuedBytes -= batch.reduce((sum, line) => sum + line.length, 0);
        if (outcome === 'ok') {
          this.stats.sent += count;
          this.reportDrops();
        } else {
          this.drop(count);
        }
      }
    } finally {
      this.pumping = false;
      if (this.queue.length === 0 || this.clock.now() > this.deadline) {
        const idle = this.idle;
        this.idle = undefined;
        idle?.();
      } else {
        this.kick(0);
      }
    }
  }

  private batchSize(): number {
    let bytes = 0;
    let count = 0;
    for (const line of this.queue) {
      if (count > 0 && (count >= this.o.batchLines || bytes + line.length > this.o.batchBytes)) break;
      bytes += line.length;
      count += 1;
    }
    return count;
  }

  private async send(body: string): Promise<Outcome> {
    const fetcher = this.o.fetch ?? fetch;
    const controller = new AbortController();
    this.inflight = controller;
    const timeout = this.clock.setTimeout(() => controller.abort(), this.o.requestTimeoutMs, { unref: true });
    try {
      if (this.traceId === undefined) {
        this.traceId = (
          await createLiveTrace({ url: this.o.url, token: this.o.token, fetch: fetcher }, this.o.label)
        ).id;
      }
      const response = await fetcher(`${this.o.url}/api/v1/traces/${this.traceId}/lines`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.o.token}`, 'content-type': 'application/x-ndjson' },
        body,
        signal: controller.signal,
      });
      const text = await response.text();
      if (response.ok) return 'ok';
      if (response.status === 429 || response.status === 408 || response.status >= 500) {
        const wait = Number(response.headers.get('retry-after'));
        if (wait > 0) await this.sleep(Math.min(wait * 1000, this.o.retryMaxMs));
        return 'retry';
      }
      // The trace already ended: a retried final batch whose first answer was lost.
      if (response.status === 409 && body.includes('"type":"end"')) return 'ok';
      this.warnOnce(
        `http-${response.status}`,
        `live view: the collector answered ${response.status}: ${errorText(text)}`,
      );
      return 'give_up';
    } catch (err) {
      if (err instanceof TapedeckError && err.code === 'input') {
        // The collector turned the live trace down (a wrong token, say): retrying will not change its mind.
        this.warnOnce('refused', `live view: ${err.message}`);
        return 'give_up';
      }
      this.warnOnce(
        'unreachable',
        `live view: cannot reach the collector at ${this.o.url} (${reason(err)}); retrying`,
      );
      return 'retry';
    } finally {
      this.clock.clearTimeout(timeout);
      this.inflight = undefined;
    }
  }

  private backoff(attempt: number): Promise<void> {
    const ceiling = Math.min(this.o.retryMaxMs, this.o.retryMinMs * 2 ** (attempt - 1));
    return this.sleep(ceiling / 2 + Math.random() * (ceiling / 2));
  }

  private sleep(ms: number): Promise<void> {
    const left = this.deadline - this.clock.now();
    return new Promise((resolve) => {
      const clock = this.clock;
      const timer = clock.setTimeout(done, Math.max(0, Math.min(ms, left)), { unref: true });
      function done() {
        clock.clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private warnOnce(kind: string, message: string): void {
    if (this.warned.has(kind)) return;
    this.warned.add(kind);
    this.o.warn(message);
  }
}

function reason(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  return err instanceof Error ? err.message : String(err);
}
