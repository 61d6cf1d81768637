/**
 * Time, for every component that waits: the clock and one-shot timers behind one small interface. The replay
 * engine (recorded gaps, the wait for a client's answer), the collector poster (batching, backoff, the close
 * deadline) and the heartbeats (the collector's live websocket pings) take a `scheduler` option, so a test can
 * hand in a clock it moves by hand and assert exact times instead of wall-clock bounds. The default,
 * {@link realScheduler}, is the host's clock and timers, looked up at each call: vitest's fake timers, installed
 * after a module was loaded, still take effect.
 */

declare const timerBrand: unique symbol;

/** A pending timer. Opaque: only the scheduler that made it can clear it. */
export type Timer = { readonly [timerBrand]: true };

export interface TimerOptions {
  /** The timer alone does not keep a Node process running (where the host has that notion). */
  unref?: boolean | undefined;
}

export interface Scheduler {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once, `ms` from now. */
  setTimeout(callback: () => void, ms: number, options?: TimerOptions): Timer;
  /** Cancels a timer that has not fired; a fired or cleared one (or undefined) is ignored. */
  clearTimeout(timer: Timer | undefined): void;
}

/**
 * The host's clock and timers.
 *
 * @example const timer = realScheduler.setTimeout(() => console.log('later'), 100, { unref: true });
 */
export const realScheduler: Scheduler = {
  now: () => Date.now(),
  setTimeout(callback, ms, options) {
    const handle: unknown = globalThis.setTimeout(callback, ms);
    if (options?.unref === true) (handle as { unref?: () => void }).unref?.();
    return handle as Timer;
  },
  clearTimeout(timer) {
    if (timer !== undefined) globalThis.clearTimeout(timer as unknown as ReturnType<typeof setTimeout>);
  },
};

/**
 * Resolves `ms` from now on `scheduler`'s clock. The timer never keeps a process running by itself: a delay is
 * always raced against something that does (a drain, an exit), and must not hold the process past it.
 *
 * @example await Promise.race([channel.flush(), delay(1000)]); // the flush, or a second, whichever is first
 */
export function delay(ms: number, scheduler: Scheduler = realScheduler): Promise<void> {
  return new Promise((resolve) => scheduler.setTimeout(resolve, ms, { unref: true }));
}

/**
 * Calls `beat` every `ms` until the returned function is called: an interval built from one-shot timers, so every
 * scheduler has it. The timers never keep a process running by themselves.
 *
 * @example const stop = every(15_000, () => pingViewers()); … stop();
 */
export function every(ms: number, beat: () => void, scheduler: Scheduler = realScheduler): () => void {
  let timer: Timer | undefined;
  let stopped = false;
  const arm = () => {
    timer = scheduler.setTimeout(
      () => {
        if (stopped) return;
        arm();
        beat();
      },
      ms,
      { unref: true },
    );
  };
  arm();
  return () => {
    stopped = true;
    scheduler.clearTimeout(timer);
  };
}
