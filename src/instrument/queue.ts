/**
 * A first-in first-out queue with a capacity: pushing onto a full queue drops the oldest item and says so.
 * O(1) push and take (an array with a moving head, compacted now and then).
 */
export class BoundedQueue<T> {
  private items: T[] = [];
  private head = 0;

  constructor(readonly capacity: number) {}

  get length(): number {
    return this.items.length - this.head;
  }

  /** Adds `item`; returns true when the oldest item was dropped to make room. */
  push(item: T): boolean {
    let dropped = false;
    if (this.length >= this.capacity) {
      this.head += 1;
      dropped = true;
    }
    this.items.push(item);
    this.compact();
    return dropped;
  }

  /** Removes and returns up to `count` of the oldest items. */
  take(count: number): T[] {
    const end = Math.min(this.items.length, this.head + count);
    const out = this.items.slice(this.head, end);
    this.head = end;
    this.compact();
    return out;
  }

  private compact(): void {
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
