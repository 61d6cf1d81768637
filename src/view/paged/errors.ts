import type { PagedErrors } from '../../trace/paged.js';
import type { FilterResult } from './query.js';
import { OUTCOMES, type TraceIndex, VIAS } from './trace-index.js';

/**
 * A paged view's failures, counted per failing call as the viewer counts them (viewer/src/data/error-nav.ts): a
 * failed request and its answer are one failure (with the failed calls the wire ties to it), placed at whichever
 * of its rows comes first in the view; a row
 * red on its own (a stray answer, an unreadable item, a recorder's warning) is one each.
 */
export interface Failures {
  /** Each failure's first row, as a place in the view, in order. */
  first: Int32Array;
  /** The failure of a failed exchange (by ordinal), by its place in `first`. */
  byExchange: Map<number, number>;
}

/**
 * The failures of a filtered view: one pass over its rows.
 *
 * @example failuresOf(index, await runFilter(index, {})).first.length // → failing calls in the trace
 */
export function failuresOf(index: TraceIndex, result: FilterResult): Failures {
  const first: number[] = [];
  const byExchange = new Map<number, number>();
  const total = result.rows?.length ?? result.upTo;
  for (let n = 0; n < total; n++) {
    const row = result.rows ? result.rows[n]! : n;
    if (!index.isError(row)) continue;
    const ordinal = exchangeOf(index, row);
    if (ordinal >= 0) {
      if (byExchange.has(ordinal)) continue;
      byExchange.set(ordinal, first.length);
    }
    first.push(n);
  }
  return { first: Int32Array.from(first), byExchange };
}

/**
 * The exchange (by ordinal) a failed row is one failure with, or -1 for a row that fails on its own: its call's, or
 * up the certain ties whose calls all failed, as trace/exchange.ts failingCall decides for a trace read whole.
 */
function exchangeOf(index: TraceIndex, row: number): number {
  const kind = index.kindOf(row);
  if (kind !== 'request' && kind !== 'response') return -1;
  let call = index.rowExchange.get(row);
  for (;;) {
    const parent = index.xParent.get(call);
    if (
      parent < 0 ||
      VIAS[index.xVia.get(call)] === 'open-request' ||
      !FAILED.has(index.xOutcome.get(parent))
    )
      return call;
    call = parent;
  }
}

/** Outcomes (by their index in OUTCOMES) of a call that failed. */
const FAILED = new Set([OUTCOMES.indexOf('error'), OUTCOMES.indexOf('tool_error')]);

/** The place in `first` of the first failure at or after `n` (first.length when none is). */
function firstFrom(first: Int32Array, n: number): number {
  let lo = 0;
  let hi = first.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (first[mid]! < n) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * How many failures a view holds, where the row `row` (at place `n` in the view; -1 for none or filtered out)
 * stands among them, and, for a step of 1 or -1, the failure after (or before) it, wrapping around the view.
 * A row that did not fail steps to the nearest failure after it (or before it).
 *
 * @example errorStep(index, failures, row, n, 1, (n) => key) // → { count: 2, at: 1, target: { n: 4, key: '0.7' } }
 */
export function errorStep(
  index: TraceIndex,
  failures: Failures,
  row: number,
  n: number,
  step: -1 | 0 | 1,
  keyAt: (n: number) => string,
): PagedErrors {
  const { first, byExchange } = failures;
  const count = first.length;
  let own: number | undefined;
  if (n >= 0 && index.isError(row)) {
    const ordinal = exchangeOf(index, row);
    own = ordinal >= 0 ? byExchange.get(ordinal) : firstFrom(first, n);
  }
  if (step === 0 || count === 0) return { count, at: own === undefined ? null : own + 1, target: null };
  let to: number;
  if (own !== undefined) to = (own + step + count) % count;
  else if (n < 0) to = step === 1 ? 0 : count - 1;
  else if (step === 1) to = firstFrom(first, n + 1) % count;
  else {
    const before = firstFrom(first, n) - 1;
    to = before < 0 ? count - 1 : before;
  }
  const place = first[to]!;
  return { count, at: to + 1, target: { n: place, key: keyAt(place) } };
}
