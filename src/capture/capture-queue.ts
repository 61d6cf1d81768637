/**
 * The trace copy made after the bytes have moved on. A recorder forwards each chunk the moment it is read; the work
 * of turning the copy into trace lines (framing, parsing, redaction, encoding) may wait until the event loop has
 * forwarded whatever else was ready, so a chunk in one direction does not wait for the trace copy of a big one in
 * another. With `inline` limits a small chunk is copied at once instead (its bytes already forwarded), which spares
 * the message an event-loop turn; big chunks, and a burst past its byte budget, still wait. Chunks of every stream
 * of one recording go through one queue, so trace lines keep the order the bytes came in (nothing is copied at once
 * while anything waits), stamped with the time they were read. Memory stays bounded: past `maxBytes` waiting, the
 * copy is made at once.
 */

/** What a chunk is captured by: a PipeCapture, or anything with its push. */
export interface ChunkCapture {
  push(chunk: Buffer, atMs?: number): void;
}

interface Waiting {
  capture: ChunkCapture;
  chunk: Buffer;
  atMs: number;
}

/** Which chunks are copied at once rather than after the turn (zeros: none). */
export interface InlineLimits {
  /** Chunks up to this many bytes are copied at once, when nothing waits. */
  chunkBytes: number;
  /** Bytes copied at once before the queue defers again: a burst lets the other reads of its turn forward first. */
  burstBytes: number;
}

export const CAPTURE_QUEUE_DEFAULTS = {
  /** Bytes that may wait for their trace copy; past this the copy is made before the next read. */
  maxBytes: 4 * 1024 * 1024,
  /** The recording proxy's limits: a message a few KB long costs no turn of its own. */
  inline: { chunkBytes: 16 * 1024, burstBytes: 256 * 1024 } satisfies InlineLimits,
} as const;

const NEVER_INLINE: InlineLimits = { chunkBytes: -1, burstBytes: 0 };

/**
 * @example
 * const later = new CaptureQueue();
 * new Pump(child.stdout, output, (chunk) => later.push(toClient, chunk));
 * // … at the end: later.flush(); toClient.end();
 */
export class CaptureQueue {
  private waiting: Waiting[] = [];
  private bytes = 0;
  private scheduled = false;
  /** Bytes copied at once since the queue last deferred. */
  private inlined = 0;

  constructor(
    private readonly maxBytes: number = CAPTURE_QUEUE_DEFAULTS.maxBytes,
    private readonly now: () => number = Date.now,
    private readonly inline: InlineLimits = NEVER_INLINE,
  ) {}

  /**
   * Queues the trace copy of `chunk` for `capture`, read just now or at `atMs`. Chunks are never copied: they are
   * not reused.
   */
  push(capture: ChunkCapture, chunk: Buffer, atMs: number = this.now()): void {
    const small = chunk.length <= this.inline.chunkBytes;
    if (small && this.waiting.length === 0 && this.inlined + chunk.length <= this.inline.burstBytes) {
      this.inlined += chunk.length;
      capture.push(chunk, atMs);
      return;
    }
    this.waiting.push({ capture, chunk, atMs });
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Makes every waiting trace copy now, in order. Call before ending the captures. */
  flush(): void {
    this.scheduled = false;
    this.inlined = 0;
    const waiting = this.waiting;
    this.waiting = [];
    this.bytes = 0;
    for (const { capture, chunk, atMs } of waiting) capture.push(chunk, atMs);
  }
}
