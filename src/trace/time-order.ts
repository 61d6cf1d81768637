import type { TraceLine } from './types.js';

/**
 * Trace lines in the order of their time, stably. A recorder with two sides writes a line when it can, not always
 * when it was stamped: the stdio ↔ HTTP bridge stamps a client's request when it read it, but writes it once the
 * request goes out, after the answers to earlier requests. Reading such a trace in file order puts requests after
 * answers that came later. Lines of equal time keep their file order, and a line without a time (the meta line)
 * keeps its place after the line before it.
 *
 * The reorder is streaming: at most `window` lines are held, so memory stays bounded on a huge trace; a line more
 * than `window` lines out of place is passed on where it stands.
 */

/** How many lines are held back at most while waiting for an earlier one (see inTimeOrder). */
export const TIME_ORDER_WINDOW = 10_000;

interface Held<T> {
  item: T;
  at: number;
  arrival: number;
}

/**
 * `items` in time order (by `line.t`), stably, holding back at most `window` of them.
 *
 * @example for await (const { line } of inTimeOrder(trace.lines())) render(line);
 */
export async function* inTimeOrder<T extends { line: TraceLine }>(
  items: AsyncIterable<T>,
  window = TIME_ORDER_WINDOW,
): AsyncGenerator<T> {
  const heap = new MinHeap<Held<T>>((a, b) => a.at - b.at || a.arrival - b.arrival);
  let arrival = 0;
  let last = Number.NEGATIVE_INFINITY;
  for await (const item of items) {
    const t = (item.line as { t?: unknown }).t;
    const at = typeof t === 'string' ? Date.parse(t) : Number.NaN;
    if (!Number.isNaN(at)) last = at;
    heap.push({ item, at: Number.isNaN(at) ? last : at, arrival: arrival++ });
    if (heap.size > window) yield heap.pop()!.item;
  }
  while (heap.size > 0) yield heap.pop()!.item;
}

/** A binary min-heap. */
class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly less: (a: T, b: T) => number) {}

  get size(): number {
    return this.items.length;
  }

  push(value: T): void {
    const items = this.items;
    items.push(value);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.less(items[i]!, items[parent]!) >= 0) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const lastItem = items.pop();
    if (items.length > 0 && lastItem !== undefined) {
      items[0] = lastItem;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < items.length && this.less(items[left]!, items[smallest]!) < 0) smallest = left;
        if (right < items.length && this.less(items[right]!, items[smallest]!) < 0) smallest = right;
        if (smallest === i) break;
        [items[i], items[smallest]] = [items[smallest]!, items[i]!];
        i = smallest;
      }
    }
    return top;
  }
}
