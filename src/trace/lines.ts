/**
 * Bytes to lines: the framing every trace reader and the collector's ingest share. Lines are split on `\n`
 * (a trailing `\r` dropped), counted from 1, held to a length limit, and decoded as UTF-8 a region at a time.
 */

/** Lines longer than this are skipped (reported), so a file without newlines cannot exhaust memory. */
export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;

/** One physical line: its bytes without `\n` or a trailing `\r`. */
export interface RawLine {
  lineNo: number;
  bytes: Uint8Array;
  /** False for a last line with no newline after it (a cut-off write, or just a missing final newline). */
  terminated: boolean;
  /** Set when the line exceeded maxLineBytes; `bytes` is then empty and this is its full length. */
  overflowBytes?: number;
}

/**
 * Splits a byte stream into lines on `\n` bytes. Splitting bytes (not decoded text) keeps UTF-8 sequences cut
 * across chunk boundaries intact: 0x0A never occurs inside a multi-byte sequence. A trailing `\r` is dropped (CRLF).
 *
 * @example
 * for await (const { lineNo, bytes } of splitLines(fs.createReadStream('trace.jsonl'))) …
 */
export async function* splitLines(
  chunks: AsyncIterable<Uint8Array>,
  options: { maxLineBytes?: number } = {},
): AsyncGenerator<RawLine> {
  const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let parts: Uint8Array[] = [];
  let size = 0;
  let lineNo = 0;
  for await (const chunk of chunks) {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      // Once a line is over the limit its parts are dropped; only its length is still counted.
      if (size + (end - start) > max) parts = [];
      else if (end > start) parts.push(chunk.subarray(start, end));
      size += end - start;
      if (nl === -1) break;
      yield finishLine(parts, size, max, ++lineNo, true);
      parts = [];
      size = 0;
      start = nl + 1;
    }
  }
  if (size > 0) yield finishLine(parts, size, max, ++lineNo, false);
}

function finishLine(
  parts: Uint8Array[],
  size: number,
  max: number,
  lineNo: number,
  terminated: boolean,
): RawLine {
  if (size > max) return { lineNo, bytes: new Uint8Array(0), terminated, overflowBytes: size };
  let bytes = parts.length === 1 ? parts[0]! : concat(parts, size);
  if (bytes.length > 0 && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1);
  return { lineNo, bytes, terminated };
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What a {@link LineSplitter} hands over, one call per physical line, in order. */
export interface LineHandler {
  /**
   * A line's text, without `\n` or a trailing `\r` (possibly empty). `terminated` is false for a last line with no
   * newline after it: a cut-off write, or just a missing final newline.
   */
  text(text: string, lineNo: number, terminated: boolean): void;
  /**
   * Offered each line's bytes before they are decoded (without `\n` or a trailing `\r`): returning true takes the
   * line, and `text` is not called for it. For readers that can read some lines without their text.
   */
  bytes?(bytes: Uint8Array, lineNo: number, terminated: boolean): boolean;
  /**
   * {@link bytes} of the line that starts at `start` of a chunk's whole lines [start, end), no view made per line:
   * returns where the line's bytes end (at its `\n`, its `\r\n`, or `end`) when it takes the line, else -1 (the
   * line then goes on to `bytes` and `text`). Only with `bytes`.
   */
  span?(chunk: Uint8Array, start: number, end: number, lineNo: number): number;
  /** A line whose bytes are not valid UTF-8. */
  notUtf8(lineNo: number, terminated: boolean): void;
  /** A line over the limit; its bytes were not kept, only counted. */
  tooLong(lineNo: number, bytes: number, terminated: boolean): void;
  /**
   * A line has just passed the limit while still arriving (`tooLong` follows once it ends): a reader that refuses
   * such lines can stop here instead of reading the rest of it.
   */
  overflow?(lineNo: number): void;
}

/**
 * Bytes in, text lines out, synchronously: push chunks as they arrive, then end(). Each chunk's whole lines are
 * decoded as one string and split there (decoding line by line costs twice as much); only a line cut by a chunk
 * boundary is carried over. A region that is not valid UTF-8, or could hold an over-long line, goes line by line
 * to name the bad one. The trace reader and the collector's ingest both read with it. A handler may throw: the
 * lines before the throwing one have been handed over, and the splitter should then be dropped.
 *
 * @example
 * const splitter = new LineSplitter({ text: (t, n) => lines.push([n, t]), notUtf8: … , tooLong: … });
 * for await (const chunk of chunks) splitter.push(chunk);
 * splitter.end();
 */
export class LineSplitter {
  /** The start of a line that a later chunk finishes. */
  private parts: Uint8Array[] = [];
  private size = 0;
  private lineNo = 0;

  constructor(
    private readonly handler: LineHandler,
    private readonly max = DEFAULT_MAX_LINE_BYTES,
  ) {}

  push(bytes: Uint8Array): void {
    // A plain view: its per-line subarrays cost less than a Node Buffer's (a handler of bytes makes one per line).
    const chunk =
      this.handler.bytes === undefined ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    const last = chunk.lastIndexOf(10);
    if (last === -1) {
      this.carry(chunk);
      return;
    }
    let start = 0;
    if (this.size > 0) {
      const nl = chunk.indexOf(10);
      this.carry(chunk.subarray(0, nl));
      this.finish(true);
      start = nl + 1;
    }
    if (last >= start) this.region(chunk.subarray(start, last));
    this.carry(chunk.subarray(last + 1));
  }

  /** The end of input: a last line without a newline is handed over (unterminated). */
  end(): void {
    if (this.size > 0) this.finish(false);
  }

  private carry(bytes: Uint8Array): void {
    // Once a line is over the limit its parts are dropped; only its length is still counted.
    if (this.size + bytes.length > this.max) {
      if (this.size <= this.max) this.handler.overflow?.(this.lineNo + 1);
      this.parts = [];
    } else if (bytes.length > 0) this.parts.push(bytes);
    this.size += bytes.length;
  }

  private finish(terminated: boolean): void {
    const raw = finishLine(this.parts, this.size, this.max, ++this.lineNo, terminated);
    this.parts = [];
    this.size = 0;
    this.rawLine(raw);
  }

  private rawLine(raw: RawLine): void {
    if (raw.overflowBytes !== undefined) {
      this.handler.tooLong(raw.lineNo, raw.overflowBytes, raw.terminated);
      return;
    }
    if (this.handler.bytes?.(raw.bytes, raw.lineNo, raw.terminated)) return;
    let text: string;
    try {
      text = utf8.decode(raw.bytes);
    } catch {
      this.handler.notUtf8(raw.lineNo, raw.terminated);
      return;
    }
    this.handler.text(text, raw.lineNo, raw.terminated);
  }

  /** The complete lines in `region` one at a time: offered to the handler's `span`, else split here. */
  private lineByLine(region: Uint8Array): void {
    // Every line of a region no longer than the limit is within it.
    const span = region.length <= this.max ? this.handler.span : undefined;
    let start = 0;
    for (;;) {
      const taken =
        span === undefined ? -1 : span.call(this.handler, region, start, region.length, this.lineNo + 1);
      let nl: number;
      if (taken >= 0) {
        this.lineNo++;
        nl = taken < region.length && region[taken] === 13 ? taken + 1 : taken;
      } else {
        nl = region.indexOf(10, start);
        const stop = nl === -1 ? region.length : nl;
        this.rawLine(
          stop - start > this.max
            ? {
                lineNo: ++this.lineNo,
                bytes: new Uint8Array(0),
                terminated: true,
                overflowBytes: stop - start,
              }
            : finishLine([region.subarray(start, stop)], stop - start, this.max, ++this.lineNo, true),
        );
      }
      if (nl === -1 || nl >= region.length) return;
      start = nl + 1;
    }
  }

  /** The complete lines in `region` (no final newline). */
  private region(region: Uint8Array): void {
    let text: string | undefined;
    // A handler that takes bytes sees every line before any is decoded.
    if (region.length <= this.max && this.handler.bytes === undefined) {
      try {
        text = utf8.decode(region);
      } catch {
        text = undefined;
      }
    }
    if (text === undefined) {
      this.lineByLine(region);
      return;
    }
    const handler = this.handler;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      let end = nl === -1 ? text.length : nl;
      if (end > start && text.charCodeAt(end - 1) === 13) end--;
      handler.text(end > start ? text.slice(start, end) : '', ++this.lineNo, true);
      if (nl === -1) return;
      start = nl + 1;
    }
  }
}
