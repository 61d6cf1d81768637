import { createHash, type Hash } from 'node:crypto';

/**
 * One physical line cut from a byte stream, without its `\n` (a trailing `\r` is kept in `bytes`, see `crlf`).
 * `bytes` may be a view into the pushed chunk: copy it to keep it past the `onLine` call.
 */
export type FramedLine =
  | { kind: 'line'; bytes: Buffer; crlf: boolean; atMs: number }
  /** A line longer than the framer keeps in memory: only its size and digest survive. */
  | { kind: 'oversize'; size: number; sha256: string; atMs: number };

export interface LineFramerOptions {
  /** Lines longer than this (bytes, without the newline) are reported as `oversize`, never buffered whole. */
  maxLineBytes: number;
  onLine: (line: FramedLine) => void;
  /** Clock for the `atMs` stamp: when the first byte of the line was read. */
  now?: () => number;
  /**
   * Join a line that spans reads in one buffer kept from line to line (up to {@link KEPT_BYTES}), not a fresh one
   * each time: `bytes` is then valid during the `onLine` call only, whichever way the line came.
   */
  reuse?: boolean;
}

/** The most a reusing framer keeps between lines for joining; a longer line gets a buffer of its own. */
const KEPT_BYTES = 4 * 1024 * 1024;

/**
 * Cuts a byte stream into lines on `\n` bytes. Framing works on bytes, not strings, so a UTF-8 character split
 * across two reads stays intact, invalid UTF-8 reaches the consumer unchanged, and a line of hundreds of MB costs
 * no more memory than `maxLineBytes` (past that it is only hashed and counted).
 *
 * @example
 * const framer = new LineFramer({ maxLineBytes: 1 << 24, onLine: (l) => console.log(l) });
 * framer.push(Buffer.from('{"a":1}\n{"b"')); framer.push(Buffer.from(':2}\n')); framer.end();
 */
export class LineFramer {
  private readonly maxLineBytes: number;
  private readonly onLine: (line: FramedLine) => void;
  private readonly now: () => number;
  private parts: Buffer[] = [];
  private pending = 0;
  /** With `reuse`: the pending bytes are the start of this buffer (`parts` stays empty). */
  private joined: Buffer | undefined;
  private startedAt = 0;
  /** Set while the current line is past `maxLineBytes`: bytes are hashed and dropped. */
  private overflow: { hash: Hash; size: number } | undefined;

  constructor(options: LineFramerOptions) {
    this.maxLineBytes = options.maxLineBytes;
    this.onLine = options.onLine;
    this.now = options.now ?? Date.now;
    if (options.reuse === true) this.joined = Buffer.allocUnsafe(64 * 1024);
  }

  /** `atMs`: when the chunk was read, if not now (a capture made after the bytes moved on). */
  push(chunk: Buffer, atMs?: number): void {
    const at = atMs ?? this.now();
    let start = 0;
    while (start < chunk.length) {
      const fresh = this.pending === 0 && this.overflow === undefined;
      if (fresh) this.startedAt = at;
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) {
        this.append(chunk.subarray(start));
        return;
      }
      if (fresh && nl - start <= this.maxLineBytes) {
        // The whole line is in this chunk: hand out a view, no copy (it is used before push() returns).
        this.emitBytes(chunk.subarray(start, nl));
      } else {
        this.append(chunk.subarray(start, nl));
        this.emit();
      }
      start = nl + 1;
    }
  }

  /** Flushes a last line that had no newline (recorded at EOF). */
  end(): void {
    if (this.pending > 0 || this.overflow !== undefined) this.emit();
  }

  private append(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.overflow !== undefined) {
      this.overflow.hash.update(piece);
      this.overflow.size += piece.length;
      return;
    }
    if (this.pending + piece.length > this.maxLineBytes) {
      const hash = createHash('sha256');
      for (const part of this.parts) hash.update(part);
      if (this.joined !== undefined) hash.update(this.joined.subarray(0, this.pending));
      hash.update(piece);
      this.overflow = { hash, size: this.pending + piece.length };
      this.parts = [];
      this.pending = 0;
      return;
    }
    // Copy: the chunk may be reused by the caller once push() returns.
    if (this.joined !== undefined) this.join(piece);
    else this.parts.push(Buffer.from(piece));
    this.pending += piece.length;
  }

  /** Copies `piece` behind the pending bytes in the kept buffer, growing it (by doubling) when needed. */
  private join(piece: Buffer): void {
    let joined = this.joined!;
    const needed = this.pending + piece.length;
    if (needed > joined.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, 2 * joined.length));
      joined.copy(grown, 0, 0, this.pending);
      joined = grown;
      this.joined = grown;
    }
    piece.copy(joined, this.pending);
  }

  private emit(): void {
    const atMs = this.startedAt;
    if (this.overflow !== undefined) {
      const { hash, size } = this.overflow;
      this.overflow = undefined;
      this.onLine({ kind: 'oversize', size, sha256: hash.digest('hex'), atMs });
      return;
    }
    if (this.joined !== undefined) {
      const bytes = this.joined.subarray(0, this.pending);
      this.pending = 0;
      if (this.joined.length > KEPT_BYTES) this.joined = Buffer.allocUnsafe(64 * 1024);
      this.emitBytes(bytes, atMs);
      return;
    }
    const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.pending);
    this.parts = [];
    this.pending = 0;
    this.emitBytes(bytes, atMs);
  }

  private emitBytes(bytes: Buffer, atMs: number = this.startedAt): void {
    const crlf = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d;
    this.onLine({ kind: 'line', bytes, crlf, atMs });
  }
}
