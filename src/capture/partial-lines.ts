/**
 * Lines of a stream that may never end: a server's stderr. A line is joined from however many writes it comes in
 * before anyone sees it (so a token written in two halves is redacted whole), but it is not held forever: one that
 * has not ended after `waitMs` is recorded up to its last blank — the word after it may still be arriving — and one
 * that still has no blank after `tailWaitMs`, or that grows past `maxBytes`, is recorded as it stands. Memory stays
 * bounded by `maxBytes` whatever the stream does, and forwarding never waits for any of this: these are copies.
 */

export interface PartialLinesOptions {
  /** A line unfinished this long is recorded up to its last blank (its last word keeps waiting). */
  waitMs: number;
  /** An unfinished line with no blank to cut at is recorded whole after this long. */
  tailWaitMs: number;
  /** A line is never held longer than this many bytes: past it, it is recorded up to its last blank. */
  maxBytes: number;
  /** A line (without its `\n`; a trailing `\r` kept), when its first byte was read, and whether more follows. */
  onLine: (bytes: Buffer, atMs: number, partial: boolean) => void;
  now?: () => number;
}

export const PARTIAL_LINE_DEFAULTS = {
  waitMs: 1000,
  tailWaitMs: 10_000,
  maxBytes: 64 * 1024,
} as const;

/** How far back from a cut point a blank is looked for, so a word is not split in two. */
const BLANK_WINDOW = 4096;

function isBlank(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d;
}

/** The last position at or before `at` that does not fall inside a UTF-8 character. */
function charBoundary(bytes: Buffer, at: number): number {
  let i = at;
  while (i > 0 && i < bytes.length && (bytes[i]! & 0xc0) === 0x80) i -= 1;
  return i;
}

/**
 * Cuts a byte stream into lines with a bounded wait and size. `push` chunks as they are read, `end` at EOF.
 *
 * @example
 * const lines = new PartialLines({ ...PARTIAL_LINE_DEFAULTS, onLine: (b, t, partial) => record(b, partial) });
 * lines.push(Buffer.from('key ghp_abc')); lines.push(Buffer.from('def\n')); // one line: 'key ghp_abcdef'
 */
export class PartialLines {
  private parts: Buffer[] = [];
  private pending = 0;
  private startedAt = 0;
  /** When the bytes now pending stopped being cut at a blank: the tail has waited since then. */
  private tailSince = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly options: PartialLinesOptions) {
    this.now = options.now ?? Date.now;
  }

  /** `atMs`: when the chunk was read, if not now (a capture made after the bytes moved on). */
  push(chunk: Buffer, atMs?: number): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      if (this.pending === 0) {
        this.startedAt = atMs ?? this.now();
        this.tailSince = this.startedAt;
      }
      this.append(chunk.subarray(start, end));
      if (nl === -1) break;
      this.emit(this.take(this.pending), false);
      // The wait is the next line's own.
      this.disarm();
      start = nl + 1;
    }
    this.arm();
  }

  /** Records a last line that had no newline. */
  end(): void {
    this.disarm();
    if (this.pending > 0) this.emit(this.take(this.pending), false);
  }

  private append(piece: Buffer): void {
    if (piece.length === 0) return;
    // Copy: the chunk may be reused by the caller once push() returns.
    this.parts.push(Buffer.from(piece));
    this.pending += piece.length;
    while (this.pending > this.options.maxBytes) this.cutAtBlank(this.options.maxBytes, true);
  }

  /** Records the pending bytes up to the last blank at or before `limit`; with `force`, up to `limit` if none. */
  private cutAtBlank(limit: number, force: boolean): boolean {
    const bytes = this.joined();
    const from = Math.max(0, limit - BLANK_WINDOW);
    let at = -1;
    for (let i = Math.min(limit, bytes.length) - 1; i >= from; i -= 1) {
      if (isBlank(bytes[i]!)) {
        at = i + 1;
        break;
      }
    }
    if (at <= 0) {
      if (!force) return false;
      at = charBoundary(bytes, limit) || limit;
    }
    this.emit(this.take(at), true);
    this.startedAt = this.now();
    this.tailSince = this.startedAt;
    return true;
  }

  private joined(): Buffer {
    if (this.parts.length > 1) this.parts = [Buffer.concat(this.parts, this.pending)];
    return this.parts[0] ?? Buffer.alloc(0);
  }

  /** Removes and returns the first `count` pending bytes. */
  private take(count: number): Buffer {
    const bytes = this.joined();
    const head = bytes.subarray(0, count);
    const rest = bytes.subarray(count);
    this.parts = rest.length > 0 ? [rest] : [];
    this.pending = rest.length;
    return head;
  }

  private emit(bytes: Buffer, partial: boolean): void {
    if (bytes.length === 0 && partial) return;
    this.options.onLine(bytes, this.startedAt, partial);
  }

  private arm(): void {
    if (this.pending === 0) {
      this.disarm();
      return;
    }
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => this.onTimer(), this.options.waitMs);
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private onTimer(): void {
    this.timer = undefined;
    if (this.pending === 0) return;
    if (!this.cutAtBlank(this.pending, false) && this.now() - this.tailSince >= this.options.tailWaitMs) {
      this.emit(this.take(this.pending), true);
    }
    this.arm();
  }
}
