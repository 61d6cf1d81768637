/**
 * Trace lines waiting to be written, as bytes in one reused buffer: a line is encoded (or, for a message read from
 * the wire, copied) once, straight into it, and a batch goes out in one write of a view of it — no per-line
 * byte-length pass, no join, no copy of the joined text.
 */

/** U+2028 and U+2029 in UTF-8 start with these two bytes (then 0xA8 or 0xA9). */
const SEPARATOR = Buffer.from([0xe2, 0x80]);
const ESCAPES = { 168: Buffer.from('\\u2028'), 169: Buffer.from('\\u2029') } as Record<number, Buffer>;
const CLOSE = Buffer.from('}\n');
/** Small batches in a row after which a buffer grown by big ones is given back. */
const SMALL_BATCHES_BEFORE_SHRINK = 8;

/**
 * Where U+2028/2029 stand in `raw` (UTF-8 bytes): they are left raw by JSON and some line readers split on them, so
 * a trace line holds their `\u` escapes instead.
 */
export function separatorsIn(raw: Buffer): readonly number[] {
  let found: number[] | undefined;
  for (let at = raw.indexOf(SEPARATOR); at !== -1; at = raw.indexOf(SEPARATOR, at + 2)) {
    const third = raw[at + 2];
    if (third !== 0xa8 && third !== 0xa9) continue;
    found ??= [];
    found.push(at);
  }
  return found ?? NONE;
}

/** No separators: shared, as most messages have none. */
const NONE: readonly number[] = Object.freeze([]);

/**
 * Bytes of the trace line a message makes from its head (see messageHead) and its wire JSON bytes (free of CR):
 * the line {@link encodeMessageLine} makes, counted without building it.
 */
export function messageBytes(head: string, raw: Buffer, separators: readonly number[]): number {
  return Buffer.byteLength(head) + raw.length + 3 * separators.length + CLOSE.length;
}

/**
 * @example
 * const lines = new LineBuffer(64 * 1024);
 * lines.addText('{"t":…}\n'); fs.writeSync(fd, lines.view()); lines.clear();
 */
export class LineBuffer {
  private pool: Buffer;
  private used = 0;
  private count = 0;
  /** Batches in a row that a buffer of the kept size would have held. */
  private smallBatches = 0;

  /** `size`: the buffer kept between batches; a bigger batch grows it for a while. */
  constructor(private readonly size: number) {
    this.pool = Buffer.allocUnsafe(size);
  }

  /** Bytes waiting. */
  get bytes(): number {
    return this.used;
  }

  /** Lines waiting. */
  get lines(): number {
    return this.count;
  }

  /** Adds one encoded line (with its newline). */
  addText(text: string): void {
    this.reserve(text.length * 3);
    this.used += this.pool.write(text, this.used);
    this.count += 1;
  }

  /** Adds one message line: its head, the wire bytes with U+2028/2029 escaped at `separators`, then `}\n`. */
  addMessage(head: string, raw: Buffer, separators: readonly number[]): void {
    this.reserve(head.length * 3 + raw.length + 3 * separators.length + CLOSE.length);
    const pool = this.pool;
    let at = this.used + pool.write(head, this.used);
    let from = 0;
    for (const sep of separators) {
      at += raw.copy(pool, at, from, sep);
      at += ESCAPES[raw[sep + 2]!]!.copy(pool, at);
      from = sep + 3;
    }
    at += raw.copy(pool, at, from);
    at += CLOSE.copy(pool, at);
    this.used = at;
    this.count += 1;
  }

  /** The waiting bytes: valid until the next change. */
  view(): Buffer {
    return this.pool.subarray(0, this.used);
  }

  /**
   * Empties the buffer. One grown by big batches is kept while they keep coming (a fresh megabyte each time costs
   * more than the copy into it) and given back after a run of small ones.
   */
  clear(): void {
    if (this.pool.length > 4 * this.size) {
      this.smallBatches = this.used > this.size ? 0 : this.smallBatches + 1;
      if (this.smallBatches >= SMALL_BATCHES_BEFORE_SHRINK) {
        this.pool = Buffer.allocUnsafe(this.size);
        this.smallBatches = 0;
      }
    }
    this.used = 0;
    this.count = 0;
  }

  private reserve(bytes: number): void {
    if (this.used + bytes <= this.pool.length) return;
    const grown = Buffer.allocUnsafe(Math.max(2 * this.pool.length, this.used + bytes));
    this.pool.copy(grown, 0, 0, this.used);
    this.pool = grown;
  }
}
