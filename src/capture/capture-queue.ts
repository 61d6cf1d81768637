/**
 * The trace copy made after the bytes have moved on. A recorder forwards each chunk the moment it is read; the work
 * of turning the copy into trace lines (framing, parsing, redaction, encoding) waits until the event loop has
 * forwarded whatever else was ready, so a chunk in one direction never waits for the trace copy of another. Chunks
 * of every stream of one recording go through one queue, so trace lines keep the order the bytes came in, stamped
 * with the time they were read. Memory stays bounded: past `maxBytes` waiting, the copy is made at once.
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

export const CAPTURE_QUEUE_DEFAULTS = {
  /** Bytes that may wait for their trace copy; past this the copy is made before the next read. */
  maxBytes: 4 * 1024 * 1024,
  /**
   * For a recorder: a chunk up to this size, when nothing waits, is copied at once (its trace copy costs less than
   * the event-loop turn waiting would take); bigger chunks, and chunks past {@link inlineBytesPerMs} in one burst,
   * wait as above.
   */
  inlineBytes: 16 * 1024,
  /** Bytes copied at once within one millisecond, at most: a burst beyond it waits. */
  inlineBytesPerMs: 64 * 1024,
} as const;

/** When chunks are copied at once rather than after the turn (see CAPTURE_QUEUE_DEFAULTS); none by default. */
export interface InlineCapture {
  inlineBytes: number;
  inlineBytesPerMs: number;
}

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

  /** The millisecond the inline budget is counted in, and the bytes copied at once in it. */
  private inlineMs = Number.NaN;
  private inlineUsed = 0;

  constructor(
    private readonly maxBytes: number = CAPTURE_QUEUE_DEFAULTS.maxBytes,
    private readonly now: () => number = Date.now,
    private readonly inline: InlineCapture = { inlineBytes: 0, inlineBytesPerMs: 0 },
  ) {}

  /**
   * Queues the trace copy of `chunk` for `capture`, read just now or at `atMs` (or, for a small chunk when nothing
   * waits and inline capture is on, makes it now). Chunks are never copied: they are not reused.
   */
  push(capture: ChunkCapture, chunk: Buffer, atMs: number = this.now()): void {
    if (this.waiting.length === 0 && chunk.length <= this.inline.inlineBytes) {
      if (atMs !== this.inlineMs) {
        this.inlineMs = atMs;
        this.inlineUsed = 0;
      }
      if (this.inlineUsed + chunk.length <= this.inline.inlineBytesPerMs) {
        this.inlineUsed += chunk.length;
        capture.push(chunk, atMs);
        return;
      }
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
    const waiting = this.waiting;
    this.waiting = [];
    this.bytes = 0;
    for (const { capture, chunk, atMs } of waiting) capture.push(chunk, atMs);
  }
}
