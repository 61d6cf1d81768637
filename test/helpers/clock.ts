import type { Scheduler, Timer, TimerOptions } from '../../src/base/scheduler.js';

/**
 * A Scheduler whose time moves only when a test moves it: components that take a `scheduler` option (the replay
 * engine, the collector poster, the collector's hub and retention, the live peers) wait on it, so a test asserts
 * what happens at exactly N ms and never sleeps. Only the handed-in component's timers are controlled; fetch,
 * sockets and streams keep their own.
 *
 * @example
 * const clock = new ManualClock();
 * const engine = new ReplayEngine(cassette, channel, { scheduler: clock, answerTimeoutMs: 50 });
 * await clock.advance(49); // nothing yet
 * await clock.advance(1); // the timeout fires, at exactly 50 ms
 */
export class ManualClock implements Scheduler {
  private time: number;
  private readonly start: number;
  private nextId = 0;
  private readonly timers = new Map<number, PendingTimer>();

  constructor(start = Date.parse('2026-03-01T10:00:00.000Z')) {
    this.time = start;
    this.start = start;
  }

  now(): number {
    return this.time;
  }

  /** Milliseconds since the clock was made. */
  get elapsed(): number {
    return this.time - this.start;
  }

  setTimeout(callback: () => void, ms: number, options?: TimerOptions): Timer {
    const id = ++this.nextId;
    const delayMs = Math.max(0, Number.isFinite(ms) ? ms : 0);
    this.timers.set(id, {
      id,
      at: this.time + delayMs,
      ms: delayMs,
      callback,
      unref: options?.unref === true,
    });
    return id as unknown as Timer;
  }

  clearTimeout(timer: Timer | undefined): void {
    if (timer !== undefined) this.timers.delete(timer as unknown as number);
  }

  /** The timers waiting, soonest first: the delay each was set with and how long until it fires. */
  pending(): { ms: number; dueIn: number; unref: boolean }[] {
    return this.sorted().map((t) => ({ ms: t.ms, dueIn: t.at - this.time, unref: t.unref }));
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way at its own time, in order (timers
   * set by a callback included), and lets the work each one starts run before the next.
   */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    await flush();
    for (;;) {
      const next = this.sorted()[0];
      if (next === undefined || next.at > target) break;
      this.timers.delete(next.id);
      this.time = next.at;
      next.callback();
      await flush();
    }
    this.time = target;
    await flush();
  }

  /** Moves time to the next timer and fires it (and any due at the same moment); resolves with how far it moved. */
  async next(): Promise<number> {
    const next = this.sorted()[0];
    if (next === undefined) throw new Error('ManualClock.next(): no timer is pending');
    const step = next.at - this.time;
    await this.advance(step);
    return step;
  }

  private sorted(): PendingTimer[] {
    return [...this.timers.values()].sort((a, b) => a.at - b.at || a.id - b.id);
  }
}

interface PendingTimer {
  id: number;
  at: number;
  ms: number;
  callback: () => void;
  unref: boolean;
}

/**
 * Lets the work already started run to where it waits on something new: promise chains, zero-delay host timers
 * and I/O callbacks already due (an in-process request through a Hono app takes a few turns).
 */
export async function flush(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}
