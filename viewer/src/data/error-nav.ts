import { type Exchange, failingCall } from 'mcp-tapedeck/trace';
import { isErrorRow, type Row } from './rows.js';

/**
 * Errors are counted and stepped through per failing call, not per red row: a failed request and its answer are
 * one error (both rows are red), and so is a failed call with the failed calls the wire ties to it (a tool call
 * that failed because its sampling request was refused: four red rows, one failing call; see failingCall). A stray
 * answer, an unreadable line or a recorder's warning is one each. The counter, the footer and the `E` key agree.
 */

/** What failed: the exchange of a failed request or answer, or the row itself. */
export function failureOf(row: Row): Exchange | Row | undefined {
  if (!isErrorRow(row)) return undefined;
  return (row.kind === 'request' || row.kind === 'response') && row.exchange
    ? failingCall(row.exchange)
    : row;
}

/** The failures of a list in order, each by the place of its first row in the list. */
function failures(rows: readonly Row[]): { first: number[]; of: Map<Exchange | Row, number> } {
  const first: number[] = [];
  const of = new Map<Exchange | Row, number>();
  for (let i = 0; i < rows.length; i++) {
    const failure = failureOf(rows[i]!);
    if (failure === undefined || of.has(failure)) continue;
    of.set(failure, first.length);
    first.push(i);
  }
  return { first, of };
}

/**
 * The first row of the next failing call after the one at `from` (step 1), or of the one before it (step -1),
 * wrapping around the list; undefined when nothing failed. `from` -1 starts before the first row, so "next" finds
 * the first failure.
 *
 * @example nextError(rows, selectedIndex, 1) // → index of the next failed call's request row
 */
export function nextError(rows: readonly Row[], from: number, step: 1 | -1): number | undefined {
  const { first, of } = failures(rows);
  if (first.length === 0) return undefined;
  const row = from >= 0 && from < rows.length ? rows[from] : undefined;
  const failure = row ? failureOf(row) : undefined;
  const at = failure === undefined ? undefined : of.get(failure);
  if (at !== undefined) return first[(at + step + first.length) % first.length];
  if (from < 0 || from >= rows.length) return step === 1 ? first[0] : first.at(-1);
  // A row that did not fail: the nearest failure after it (or before it).
  if (step === 1) return first.find((i) => i > from) ?? first[0];
  return [...first].reverse().find((i) => i < from) ?? first.at(-1);
}

/**
 * How many calls (and lines) failed, and the 1-based place among them of the one the row at `index` belongs to
 * ("error 2 of 5").
 *
 * @example errorPosition(rows, 7) // → { count: 5, at: 2 }
 */
export function errorPosition(
  rows: readonly Row[],
  index: number,
): { count: number; at: number | undefined } {
  const { first, of } = failures(rows);
  const row = index >= 0 ? rows[index] : undefined;
  const failure = row ? failureOf(row) : undefined;
  const at = failure === undefined ? undefined : of.get(failure);
  return { count: first.length, at: at === undefined ? undefined : at + 1 };
}
