import { isErrorRow, type Row } from './rows.js';

/**
 * The next failed row after `from` (step 1) or before it (step -1), wrapping around the list; undefined when no
 * row failed. `from` -1 starts before the first row, so "next" finds the first error.
 *
 * @example nextError(rows, selectedIndex, 1) // → index of the next red row
 */
export function nextError(rows: readonly Row[], from: number, step: 1 | -1): number | undefined {
  const n = rows.length;
  if (n === 0) return undefined;
  let at = from < 0 || from >= n ? (step === 1 ? -1 : n) : from;
  for (let i = 0; i < n; i++) {
    at = (at + step + n) % n;
    if (isErrorRow(rows[at]!)) return at;
  }
  return undefined;
}

/**
 * How many rows failed, and the 1-based place of `index` among them when it is one ("error 2 of 5").
 *
 * @example errorPosition(rows, 7) // → { count: 5, at: 2 }
 */
export function errorPosition(
  rows: readonly Row[],
  index: number,
): { count: number; at: number | undefined } {
  let count = 0;
  let at: number | undefined;
  for (let i = 0; i < rows.length; i++) {
    if (!isErrorRow(rows[i]!)) continue;
    count++;
    if (i === index) at = count;
  }
  return { count, at };
}
