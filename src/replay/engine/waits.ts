import { realScheduler, type Scheduler } from '../../base/scheduler.js';
import type { JsonObject } from '../../trace/jsonrpc.js';

/**
 * Every wait replay does — recorded gaps and client answers — with a timer on the engine's scheduler, so nothing
 * waits forever, and a way to stop them all at once (engine closed) or per playback (the client cancelled the
 * request).
 */

/** One playing timeline; cancelling it wakes its waits. */
export class Playback {
  cancelled = false;
  private readonly wakes = new Set<() => void>();

  cancel(): void {
    this.cancelled = true;
    for (const wake of [...this.wakes]) wake();
  }

  /** @internal Registers a wake-up for the duration of one wait. */
  onCancel(wake: () => void): () => void {
    this.wakes.add(wake);
    return () => this.wakes.delete(wake);
  }
}

export type AnswerOutcome =
  | { kind: 'answer'; message: JsonObject }
  | { kind: 'timeout' }
  | { kind: 'stopped' };

export class Waits {
  private readonly stops = new Set<() => void>();
  private readonly answers = new Map<string, (message: JsonObject) => void>();
  private closed = false;

  constructor(private readonly scheduler: Scheduler = realScheduler) {}

  /** Resolves after `ms`, or early when the waits are closed or `playback` is cancelled. */
  sleep(ms: number, playback: Playback): Promise<void> {
    return this.wait(ms, playback, () => undefined, undefined, undefined);
  }

  /** Waits for the client's answer to the server→client request whose live id key is `key`. */
  answer(key: string, timeoutMs: number, playback: Playback): Promise<AnswerOutcome> {
    return this.wait<AnswerOutcome>(
      timeoutMs,
      playback,
      () => ({ kind: 'timeout' }),
      { kind: 'stopped' },
      (settle) => {
        this.answers.set(key, (message) => settle({ kind: 'answer', message }));
        return () => this.answers.delete(key);
      },
    );
  }

  /** Hands a client's answer to whoever waits for it; false when nobody does. */
  deliver(key: string, message: JsonObject): boolean {
    const waiter = this.answers.get(key);
    if (!waiter) return false;
    waiter(message);
    return true;
  }

  /** Ends every wait now ('stopped'); later waits end at once. */
  close(): void {
    this.closed = true;
    for (const stop of [...this.stops]) stop();
  }

  private wait<T>(
    ms: number,
    playback: Playback,
    timedOut: () => T,
    stopped: T,
    register?: (settle: (value: T) => void) => () => void,
  ): Promise<T> {
    if (this.closed || playback.cancelled) return Promise.resolve(stopped);
    return new Promise<T>((resolve) => {
      let unregister: (() => void) | undefined;
      const settle = (value: T) => {
        this.scheduler.clearTimeout(timer);
        this.stops.delete(stop);
        unsubscribe();
        unregister?.();
        resolve(value);
      };
      const stop = () => settle(stopped);
      const timer = this.scheduler.setTimeout(() => settle(timedOut()), ms);
      this.stops.add(stop);
      const unsubscribe = playback.onCancel(stop);
      unregister = register?.(settle);
    });
  }
}
