/**
 * The heights of wrapped lines in a list of monospace text, without rendering them: a line of n characters in a
 * list c characters wide takes ceil(n / c) rows. Offsets are prefix sums, so the line at a scroll position is a
 * binary search away however many lines the file has. Lines longer than `maxChars` are shown cut, so they count
 * as `maxChars` (plus the note that says so).
 */
export interface WrapLayout {
  /** Lines laid out. */
  readonly count: number;
  /** Total height in pixels. */
  readonly height: number;
  /** Top of line `i` (0-based) in pixels. */
  top(i: number): number;
  /** Height of line `i` in pixels. */
  heightOf(i: number): number;
  /** The line at `offset` pixels from the top. */
  indexAt(offset: number): number;
}

export interface WrapOptions {
  /** Characters that fit across the list. */
  columns: number;
  /** Pixels per visual row. */
  rowHeight: number;
  /** Characters of a line shown at most. */
  maxChars: number;
  /** Characters of the note that ends a line cut at `maxChars` (default 40). */
  noteChars?: number;
}

/**
 * @example const layout = wrapLayout(3, (i) => [10, 250, 0][i]!, { columns: 100, rowHeight: 20, maxChars: 2000 });
 * layout.height // → 100 (1 + 3 + 1 rows); layout.indexAt(30) // → 1
 */
export function wrapLayout(count: number, length: (i: number) => number, options: WrapOptions): WrapLayout {
  const columns = Math.max(1, Math.floor(options.columns));
  const tops = new Float64Array(count + 1);
  for (let i = 0; i < count; i++) {
    const full = length(i);
    const chars = full > options.maxChars ? options.maxChars + (options.noteChars ?? 40) : full;
    const rows = Math.max(1, Math.ceil(chars / columns));
    tops[i + 1] = tops[i]! + rows * options.rowHeight;
  }
  return {
    count,
    height: tops[count]!,
    top: (i) => tops[Math.max(0, Math.min(count, i))]!,
    heightOf: (i) => tops[i + 1]! - tops[i]!,
    indexAt(offset) {
      let lo = 0;
      let hi = count - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (tops[mid]! <= offset) lo = mid;
        else hi = mid - 1;
      }
      return Math.max(0, lo);
    },
  };
}
