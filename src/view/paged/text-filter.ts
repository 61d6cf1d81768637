/**
 * A compact filter of which parts of a file may hold a piece of text, built while the file is scanned for its
 * lines, so a search of a big paged trace reads only the parts that can match rather than the whole file.
 *
 * The file is cut into blocks of whole lines (about BLOCK bytes each); each block keeps a bit set of the
 * three-byte sequences (trigrams) it holds, ASCII letters folded to lower case. Text of three bytes or more is
 * only in a block whose set has every one of its trigrams; a few blocks pass that do not hold it (a bit shared by
 * two trigrams), and they are read and tested like the rest. A trigram with a byte outside ASCII is left out on
 * both sides (its case folding is not a byte's), as is anything across a newline (no match spans two lines).
 */

/** Bytes per block (a block ends at the first newline past this). */
const BLOCK = 64 * 1024;
/** Bits per block's set: a 64 KiB block of JSON holds a few thousand distinct trigrams. */
const BITS_LOG2 = 14;
const WORDS = (1 << BITS_LOG2) >>> 5;
/** Neighbouring blocks are joined into one range up to this size (one read, one text in memory). */
export const MAX_RANGE = 4 * 1024 * 1024;

/** The bit of a trigram (its three bytes as one number). */
function bitOf(trigram: number): number {
  return Math.imul(trigram, 0x9e3779b1) >>> (32 - BITS_LOG2);
}

/** A byte, an ASCII letter in lower case. */
function folded(byte: number): number {
  return byte >= 65 && byte <= 90 ? byte | 32 : byte;
}

/**
 * The bits a text's trigrams set; undefined when the text has none the filter can use (shorter than three
 * bytes, or no three ASCII bytes in a row).
 *
 * @example trigramBits('echo') // → [bit of "ech", bit of "cho"]
 */
export function trigramBits(text: string): number[] | undefined {
  const bytes = Buffer.from(text, 'utf8');
  const bits = new Set<number>();
  let run = 0;
  let last = 0;
  for (const byte of bytes) {
    if (byte >= 128 || byte === 10) {
      run = 0;
      continue;
    }
    last = ((last << 8) | folded(byte)) & 0xffffff;
    if (++run >= 3) bits.add(bitOf(last));
  }
  return bits.size === 0 ? undefined : [...bits];
}

/**
 * The blocks of one file and their trigram sets, fed the file's bytes in order.
 *
 * @example const filter = new TextFilter(); filter.feed(buffer, n, 0); filter.finish(n); filter.ranges('echo')
 */
export class TextFilter {
  /** starts[b] is where block b begins; block b ends where b + 1 begins (the last where the file was scanned to). */
  private readonly starts: number[] = [0];
  private readonly sets: Uint32Array[] = [new Uint32Array(WORDS)];
  private end = 0;
  private run = 0;
  private last = 0;

  /** Feeds `length` bytes of `buffer`, which are the file's bytes from `position` on. */
  feed(buffer: Uint8Array, length: number, position: number): void {
    let set = this.sets[this.sets.length - 1]!;
    let blockStart = this.starts[this.starts.length - 1]!;
    let run = this.run;
    let last = this.last;
    for (let i = 0; i < length; i++) {
      const byte = buffer[i]!;
      if (byte === 10) {
        run = 0;
        if (position + i + 1 - blockStart >= BLOCK) {
          blockStart = position + i + 1;
          this.starts.push(blockStart);
          set = new Uint32Array(WORDS);
          this.sets.push(set);
        }
        continue;
      }
      if (byte >= 128) {
        run = 0;
        continue;
      }
      last = ((last << 8) | (byte >= 65 && byte <= 90 ? byte | 32 : byte)) & 0xffffff;
      if (++run >= 3) {
        const bit = Math.imul(last, 0x9e3779b1) >>> (32 - BITS_LOG2);
        set[bit >>> 5]! |= 1 << (bit & 31);
      }
    }
    this.run = run;
    this.last = last;
    this.end = position + length;
  }

  /** The file was scanned to `end`: the last block ends there. */
  finish(end: number): void {
    this.end = end;
  }

  /**
   * The byte ranges that may hold a text (whole lines; neighbouring blocks joined), or undefined when the
   * filter cannot tell (the text has no trigram it keeps): then every line has to be read.
   */
  ranges(text: string): { start: number; end: number }[] | undefined {
    const bits = trigramBits(text);
    if (bits === undefined) return undefined;
    const out: { start: number; end: number }[] = [];
    for (let b = 0; b < this.sets.length; b++) {
      const set = this.sets[b]!;
      let all = true;
      for (const bit of bits) {
        if ((set[bit >>> 5]! & (1 << (bit & 31))) === 0) {
          all = false;
          break;
        }
      }
      if (!all) continue;
      const start = this.starts[b]!;
      const end = b + 1 < this.starts.length ? this.starts[b + 1]! : this.end;
      if (end <= start) continue;
      const previous = out[out.length - 1];
      if (previous && previous.end === start && end - previous.start <= MAX_RANGE) previous.end = end;
      else out.push({ start, end });
    }
    return out;
  }
}
