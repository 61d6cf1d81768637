/**
 * A bound on how many large uploads are ingested at once. Each one holds up to a line and a batch in memory, so
 * without a bound, memory grows with the number of clients; with it, a client that finds every slot taken waits
 * with its body unread (the kernel's socket buffers hold what it has sent) until a slot is free, first come first
 * served.
 *
 * @example const slots = new Slots(2); const release = await slots.take(); try { … } finally { release(); }
 */
export class Slots {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Resolves once a slot is free, to the function that gives it back (call it exactly once). */
  async take(): Promise<() => void> {
    if (this.busy >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.busy += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `busy` stays as it is.
      if (next !== undefined) next();
      else this.busy -= 1;
    };
  }

  /** Uploads waiting for a slot right now. */
  get queued(): number {
    return this.waiting.length;
  }
}
