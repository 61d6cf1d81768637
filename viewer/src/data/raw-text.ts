/**
 * A trace file's text for the Raw view, line by line, without holding a string per line: the bytes stay as they
 * came and only the lines on screen are decoded. A live trace appends lines as text instead.
 */
export interface RawText {
  /** The file's name as the trace knows it (TraceEntry.file). */
  readonly path: string;
  /** Number of lines (a final line without a newline counts). */
  lineCount(): number;
  /** The text of 1-based line `lineNo`, cut at `max` characters. */
  line(lineNo: number, max?: number): string;
  /**
   * The length of line `lineNo` without decoding it: in bytes for a file (as many as its characters for ASCII, a
   * little more otherwise), in characters for a live trace. What laying out wrapped lines needs.
   */
  lineLength(lineNo: number): number;
  /** Byte length, for display. */
  size(): number;
}

const decoder = new TextDecoder('utf-8');

/**
 * Raw text over a file's bytes (or a function giving them, once a download is complete). Line starts are found once
 * (a native indexOf scan), lazily on first use.
 *
 * @example const raw = bytesText('a.jsonl', bytes); raw.line(1) // → '{"v":1,"type":"meta",…}'
 */
export function bytesText(path: string, source: Uint8Array | (() => Uint8Array)): RawText {
  let starts: Uint32Array | Float64Array | undefined;
  let count = 0;
  let bytes: Uint8Array = new Uint8Array(0);
  const index = () => {
    // A download still coming in gives a new array as it grows: index again then.
    const current = typeof source === 'function' ? source() : source;
    if (starts && current === bytes) return starts;
    bytes = current;
    const found: number[] = [0];
    for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) found.push(at + 1);
    // A trailing newline ends the last line; it does not start another.
    if (found.length > 1 && found[found.length - 1] === bytes.length) found.pop();
    count = bytes.length === 0 ? 0 : found.length;
    starts = bytes.length < 2 ** 32 ? Uint32Array.from(found) : Float64Array.from(found);
    return starts;
  };
  return {
    path,
    lineCount() {
      index();
      return count;
    },
    line(lineNo, max = Number.POSITIVE_INFINITY) {
      const s = index();
      if (lineNo < 1 || lineNo > count) return '';
      const from = s[lineNo - 1]!;
      const to = lineEnd(s, lineNo);
      // Cut in bytes before decoding: a multi-MB base64 line stays cheap to show.
      const cut = Number.isFinite(max) ? Math.min(to, from + max * 4) : to;
      const text = decoder.decode(bytes.subarray(from, cut));
      return text.length > max ? text.slice(0, max) : text;
    },
    lineLength(lineNo) {
      const s = index();
      if (lineNo < 1 || lineNo > count) return 0;
      return lineEnd(s, lineNo) - s[lineNo - 1]!;
    },
    size() {
      index();
      return bytes.length;
    },
  };

  /** Where line `lineNo` ends: before its newline, and before a CR that precedes it. */
  function lineEnd(s: Uint32Array | Float64Array, lineNo: number): number {
    const from = s[lineNo - 1]!;
    let to = lineNo < count ? s[lineNo]! - 1 : bytes.length;
    if (to > from && bytes[to - 1] === 13) to -= 1;
    return to;
  }
}

/**
 * Raw text a line at a time (live traces: frames carry lines as text).
 *
 * @example const raw = linesText('live'); raw.append('{"t":…}'); raw.lineCount() // → 1
 */
export function linesText(path: string): RawText & { append(line: string): void } {
  const lines: string[] = [];
  let bytes = 0;
  return {
    path,
    lineCount: () => lines.length,
    line(lineNo, max = Number.POSITIVE_INFINITY) {
      const text = lines[lineNo - 1] ?? '';
      return text.length > max ? text.slice(0, max) : text;
    },
    lineLength: (lineNo) => lines[lineNo - 1]?.length ?? 0,
    size: () => bytes,
    append(line) {
      lines.push(line);
      bytes += line.length + 1;
    },
  };
}
