import type { Readable, Writable } from 'node:stream';

/** What the drain at the end of a recording needs of a pump. */
export interface Draining {
  /** Resolves when the source has ended and everything it gave has gone on. */
  readonly done: Promise<void>;
  /** True while the destination is not keeping up (that time is not counted against the drain). */
  readonly isBlocked: boolean;
}

/**
 * Forwards every chunk from `source` to `destination` before anyone else sees it, and pauses the source while
 * the destination's buffer is full — so memory stays bounded when the reader is slow.
 *
 * @example const pump = new Pump(child.stdout, clientOut, (chunk) => capture.push(chunk)); await pump.done;
 */
export class Pump implements Draining {
  /** Resolves when the source has ended, closed or failed. */
  readonly done: Promise<void>;
  private blocked = false;

  constructor(
    private readonly source: Readable,
    private readonly destination: Writable,
    observe: (chunk: Buffer) => void,
  ) {
    source.on('data', (chunk: Buffer) => {
      const ok = destination.writable ? destination.write(chunk) : true;
      observe(chunk);
      if (!ok && !this.blocked) this.waitForDrain();
    });
    this.done = new Promise((resolve) => {
      // A source that ended before the pump was attached (a relay read it first) is done already.
      if (source.readableEnded || source.destroyed) resolve();
      source.once('end', resolve);
      source.once('close', resolve);
      source.once('error', () => resolve());
    });
  }

  /** True while the source is paused because the destination is not keeping up. */
  get isBlocked(): boolean {
    return this.blocked;
  }

  private waitForDrain(): void {
    this.blocked = true;
    pauseUntilDrained(this.source, this.destination, () => {
      this.blocked = false;
      return true;
    });
  }
}

/**
 * Pauses `source` until `destination` drains — or closes: a destination that goes away never drains, and the source
 * must not be stuck forever. Then `settled` runs, and the source is read on unless it returns false.
 *
 * @example if (!destination.write(chunk)) pauseUntilDrained(source, destination, () => stillMine);
 */
export function pauseUntilDrained(source: Readable, destination: Writable, settled: () => boolean): void {
  source.pause();
  const resume = () => {
    destination.off('close', resume);
    destination.off('drain', resume);
    if (settled()) source.resume();
  };
  destination.once('drain', resume);
  destination.once('close', resume);
}

/**
 * Waits for `pumps` to finish, giving up after `budgetMs` of time in which none of them was held back by a slow
 * reader: a grandchild may hold a pipe open forever, but a slow client must still get everything.
 */
export async function drainWithin(pumps: Draining[], budgetMs: number, tickMs = 25): Promise<boolean> {
  let finished = false;
  const all = Promise.all(pumps.map((pump) => pump.done)).then(() => {
    finished = true;
  });
  let spent = 0;
  while (!finished && spent < budgetMs) {
    const started = Date.now();
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, tickMs))]);
    if (!pumps.some((pump) => pump.isBlocked)) spent += Date.now() - started;
  }
  return finished;
}
