import { type Direction, type ExchangeOutcome, requestLabel } from 'mcp-tapedeck/trace';
import { type ProgressState, progressOf } from './progress.js';
import type { Row } from './rows.js';

/**
 * The waterfall: every request a bar on one time axis, from when it was sent to when it was answered (DevTools'
 * Network panel, for JSON-RPC). Server→client requests made on behalf of a call (sampling, elicitation, roots) are
 * bars of their own, nested under it; the notifications that belong to a call are marks inside its bar. Built
 * from the timeline's rows, so the search and filters narrow it as they narrow the timeline.
 */

export type MarkKind = 'progress' | 'log' | 'cancel' | 'other';

/** A notification that belongs to a request, at the time it was seen. */
export interface WaterfallMark {
  time: number;
  kind: MarkKind;
  /** Tied to the request by a guess (the request open at the time), not by anything on the wire. */
  guess: boolean;
}

export interface WaterfallBar {
  /** The request row's key: choosing a bar selects the request. */
  key: string;
  src: number;
  label: string;
  dir: Direction;
  depth: number;
  /** When the request was seen (epoch ms). */
  start: number;
  /** When the answer was seen; undefined while the request is open or when it never got one. */
  end: number | undefined;
  outcome: ExchangeOutcome;
  cancelled: boolean;
  latency: number | undefined;
  /** Tied to its parent request by a guess. */
  guess: boolean;
  marks: WaterfallMark[];
  progress: ProgressState | undefined;
}

export interface Waterfall {
  bars: WaterfallBar[];
  /** The axis: the earliest and the latest time among the rows (epoch ms). */
  start: number;
  end: number;
  /** Requests that could not be placed: their line has no time. */
  untimed: number;
}

function markKind(method: string): MarkKind {
  if (method === 'notifications/progress') return 'progress';
  if (method === 'notifications/message') return 'log';
  if (method === 'notifications/cancelled') return 'cancel';
  return 'other';
}

/**
 * The bars of the requests among `rows` (rows in time order, as the timeline holds them), on an axis from the
 * first row's time to the last's (or `start`, the trace's zero, when given).
 *
 * @example const { bars, start, end } = waterfallOf(rows, model.start());
 */
export function waterfallOf(rows: readonly Row[], start?: number): Waterfall {
  const bars: WaterfallBar[] = [];
  let first = start ?? Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let untimed = 0;
  for (const row of rows) {
    if (row.time !== undefined) {
      if (row.time < first) first = row.time;
      if (row.time > last) last = row.time;
    }
    if (row.kind !== 'request') continue;
    const exchange = row.exchange!;
    const sent = exchange.requestRef.time ?? row.time;
    if (sent === undefined) {
      untimed++;
      continue;
    }
    const answered = exchange.responseRef?.time;
    if (answered !== undefined && answered > last) last = answered;
    const marks: WaterfallMark[] = [];
    for (const child of exchange.children) {
      if (child.kind !== 'notification' || child.ref.time === undefined) continue;
      marks.push({
        time: child.ref.time,
        kind: markKind(child.notification.method),
        guess: child.via === 'open-request',
      });
    }
    bars.push({
      key: row.key,
      src: row.src,
      label: requestLabel(exchange.request),
      dir: exchange.dir,
      depth: exchange.depth,
      start: sent,
      end: answered,
      outcome: exchange.outcome,
      cancelled: exchange.cancelled,
      latency: exchange.latencyMs,
      guess: exchange.via === 'open-request',
      marks,
      progress: progressOf(exchange),
    });
  }
  if (first === Number.POSITIVE_INFINITY) first = 0;
  if (last < first) last = first;
  return { bars, start: first, end: last, untimed };
}

/** A stretch of the axis (epoch ms). */
export interface TimeRange {
  from: number;
  to: number;
}

/** Where a bar sits in a range: left edge and width as fractions of the range, and whether it runs past either end. */
export interface BarBox {
  left: number;
  width: number;
  /** The bar starts before the range. */
  before: boolean;
  /** The bar runs past the range (or is still open at its end). */
  after: boolean;
}

/**
 * A bar's box in `range`; an open bar runs to `openEnd` (the last time the trace holds). Undefined when the bar
 * lies wholly outside the range.
 *
 * @example barBox(bar, { from: 0, to: 1000 }, 1000) // → { left: 0.1, width: 0.25, before: false, after: false }
 */
export function barBox(bar: WaterfallBar, range: TimeRange, openEnd: number): BarBox | undefined {
  const span = Math.max(1, range.to - range.from);
  const end = bar.end ?? Math.max(openEnd, bar.start);
  if (end < range.from || bar.start > range.to) return undefined;
  const from = Math.max(bar.start, range.from);
  const to = Math.min(end, range.to);
  return {
    left: (from - range.from) / span,
    width: Math.max(0, to - from) / span,
    before: bar.start < range.from,
    after: end > range.to || bar.end === undefined,
  };
}

/**
 * The bars that show in a range (those that overlap it), in their order.
 *
 * @example barsIn(bars, { from: 1000, to: 2000 }, end)
 */
export function barsIn(bars: readonly WaterfallBar[], range: TimeRange, openEnd: number): WaterfallBar[] {
  return bars.filter((bar) => {
    const end = bar.end ?? Math.max(openEnd, bar.start);
    return end >= range.from && bar.start <= range.to;
  });
}

/** A fitted axis is never narrower than this (ms): a screen of instant answers still reads as a stretch of time. */
const MIN_FIT_MS = 10;
/** The whole-trace axis gives way to the fitted one when the rows in view take less than this share of it. */
export const FIT_SHARE = 0.01;

/**
 * The stretch of time the bars in view take, with a little room either side, so they fill the track instead of
 * being slivers on the axis of a long trace. An open bar counts from its start only (it would otherwise stretch
 * the fit to the end of the trace). Undefined when no bar is at hand.
 *
 * @example fitRange([{ start: 1000, end: 1100 }, { start: 1050, end: 1300 }]) // → { from: 988, to: 1312 }
 */
export function fitRange(
  bars: Iterable<Pick<WaterfallBar, 'start' | 'end'> | undefined>,
): TimeRange | undefined {
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const bar of bars) {
    if (!bar) continue;
    if (bar.start < from) from = bar.start;
    const end = bar.end ?? bar.start;
    if (end > to) to = end;
  }
  if (from === Number.POSITIVE_INFINITY) return undefined;
  const span = Math.max(MIN_FIT_MS, to - from);
  const middle = (from + to) / 2;
  const half = (span * 1.08) / 2;
  return { from: middle - half, to: middle + half };
}

/**
 * Whether the waterfall draws the rows in view on their own axis: asked for (`fit`), or, left to itself, when
 * the rows in view take so little of the whole trace that its axis would draw them a pixel wide.
 *
 * @example fits(undefined, { from: 0, to: 100 }, { from: 0, to: 18_000_000 }) // → true
 */
export function fits(
  asked: 'fit' | 'whole' | undefined,
  fitted: TimeRange | undefined,
  whole: TimeRange,
): boolean {
  if (!fitted || asked === 'whole') return false;
  return asked === 'fit' || fitted.to - fitted.from < (whole.to - whole.from) * FIT_SHARE;
}

/**
 * At most `max` marks, evenly picked (the first and the last always kept), so a call with thousands of progress
 * notifications still draws quickly.
 *
 * @example thinMarks(marks, 100).length // → ≤ 100
 */
export function thinMarks<T>(marks: readonly T[], max: number): readonly T[] {
  if (marks.length <= max || max < 2) return marks;
  const out: T[] = [];
  const step = (marks.length - 1) / (max - 1);
  for (let i = 0; i < max; i++) out.push(marks[Math.round(i * step)]!);
  return out;
}

/**
 * How many requests were in flight in each of `buckets` slices of the range (for the overview strip above the
 * bars), each slice counting the bars that overlap it.
 *
 * @example density(bars, { from: 0, to: 1000 }, 1000, 100) // → [0, 2, 3, …] (100 counts)
 */
export function density(
  bars: readonly WaterfallBar[],
  range: TimeRange,
  openEnd: number,
  buckets: number,
): number[] {
  const counts = new Array<number>(buckets).fill(0);
  const span = Math.max(1, range.to - range.from);
  // Counts are added at each bar's first slice and taken off after its last, then summed up in one pass.
  const delta = new Array<number>(buckets + 1).fill(0);
  for (const bar of bars) {
    const end = bar.end ?? Math.max(openEnd, bar.start);
    if (end < range.from || bar.start > range.to) continue;
    const a = Math.max(0, Math.min(buckets - 1, Math.floor(((bar.start - range.from) / span) * buckets)));
    const b = Math.max(a, Math.min(buckets - 1, Math.floor(((end - range.from) / span) * buckets)));
    delta[a]! += 1;
    delta[b + 1]! -= 1;
  }
  let running = 0;
  for (let i = 0; i < buckets; i++) {
    running += delta[i]!;
    counts[i] = running;
  }
  return counts;
}

/**
 * Where the waterfall view gets its bars: the bars in a range, and the overview's counts. A trace held in the
 * browser answers from its rows (memoryBars); a trace too big to hold is asked page by page from the server.
 */
export interface BarSource {
  /** The axis: the earliest and latest time of the trace (epoch ms). */
  readonly start: number;
  readonly end: number;
  /** Requests without a time, left off the axis. */
  readonly untimed: number;
  /** The bars overlapping `range`, in order. */
  inRange(range: TimeRange): BarList;
  /** Requests in flight per slice of the whole axis (see {@link density}). */
  density(buckets: number): number[];
}

/** Bars in a range: how many, each by its place (undefined while it is fetched), and where a request's bar is. */
export interface BarList {
  readonly count: number;
  /** The count is not known yet (the server has not answered). */
  readonly loading?: boolean;
  at(index: number): WaterfallBar | undefined;
  /** The place of the bar of the request row `key`, or -1. */
  indexOf(key: string): number;
}

/**
 * A BarSource over bars held in memory.
 *
 * @example const source = memoryBars(waterfallOf(rows, model.start()));
 */
export function memoryBars(waterfall: Waterfall): BarSource {
  const whole = { from: waterfall.start, to: waterfall.end };
  return {
    start: waterfall.start,
    end: waterfall.end,
    untimed: waterfall.untimed,
    inRange(range) {
      const bars =
        range.from <= whole.from && range.to >= whole.to
          ? waterfall.bars
          : barsIn(waterfall.bars, range, waterfall.end);
      return {
        count: bars.length,
        at: (i) => bars[i],
        indexOf: (key) => bars.findIndex((b) => b.key === key),
      };
    },
    density: (buckets) => density(waterfall.bars, whole, waterfall.end, buckets),
  };
}
