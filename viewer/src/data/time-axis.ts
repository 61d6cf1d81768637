import type { TimeRange } from './waterfall.js';

/**
 * The waterfall's time axis: round tick steps, tick labels, the zoomed range kept in the URL (`span=<from>-<to>`,
 * milliseconds from the trace's start) and the zoom steps the buttons take.
 */

const STEPS = [1, 2, 5];

/**
 * A round step (1, 2 or 5 times a power of ten, in ms) that cuts the range into at most `max` pieces.
 *
 * @example tickStep(10_000, 8) // → 2000
 */
export function tickStep(span: number, max: number): number {
  if (span <= 0 || max <= 0) return 1;
  const rough = span / max;
  let power = 10 ** Math.floor(Math.log10(rough));
  for (;;) {
    for (const base of STEPS) {
      const step = base * power;
      if (step >= rough) return Math.max(1, step);
    }
    power *= 10;
  }
}

/**
 * The ticks of a range, as offsets from `zero` (the trace's start) that are multiples of the step.
 *
 * @example axisTicks({ from: 0, to: 10_000 }, 0, 5) // → { step: 2000, ticks: [0, 2000, 4000, 6000, 8000, 10000] }
 */
export function axisTicks(range: TimeRange, zero: number, max: number): { step: number; ticks: number[] } {
  const step = tickStep(range.to - range.from, max);
  const ticks: number[] = [];
  const first = Math.ceil((range.from - zero) / step) * step;
  for (let t = first; zero + t <= range.to; t += step) ticks.push(t);
  return { step, ticks };
}

/**
 * A tick's label: milliseconds while the step is under a second, else seconds with as many decimals as the step
 * needs; from a minute into the trace on, a clock (`4:30:00`, `1:02:03.25`) with the decimals the step needs, so
 * a stretch far into a long trace reads as a time, not as millions of milliseconds.
 *
 * @example tickLabel(1500, 500) // → '1500 ms'
 * @example tickLabel(4000, 2000) // → '4 s'
 * @example tickLabel(3_723_250, 50) // → '1:02:03.25'
 */
export function tickLabel(offset: number, step: number): string {
  if (Math.abs(offset) >= 60_000) return clock(offset, step);
  if (step < 1000) return `${Math.round(offset)} ms`;
  const decimals = step % 1000 === 0 ? 0 : 1;
  return `${(offset / 1000).toFixed(decimals)} s`;
}

/** An offset as `m:ss` or `h:mm:ss`, with the decimals of a second the step needs. */
function clock(offset: number, step: number): string {
  const decimals = step % 1000 === 0 ? 0 : step % 100 === 0 ? 1 : step % 10 === 0 ? 2 : 3;
  const sign = offset < 0 ? '−' : '';
  const total = Math.abs(offset) / 1000;
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = (total % 60).toFixed(decimals).padStart(decimals > 0 ? 3 + decimals : 2, '0');
  return hours > 0
    ? `${sign}${hours}:${String(minutes).padStart(2, '0')}:${seconds}`
    : `${sign}${minutes}:${seconds}`;
}

/**
 * Reads `span=<from>-<to>` (ms from the trace's start) into a range inside [start, end]; undefined when absent,
 * malformed or empty.
 *
 * @example parseSpan('100-600', 1_000, 5_000) // → { from: 1100, to: 1600 }
 */
export function parseSpan(text: string | undefined, start: number, end: number): TimeRange | undefined {
  const match = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(text ?? '');
  if (!match) return undefined;
  const from = Math.max(start, start + Number(match[1]));
  const to = Math.min(end, start + Number(match[2]));
  return to > from ? { from, to } : undefined;
}

/**
 * Writes a range as the URL keeps it (whole milliseconds from the start).
 *
 * @example formatSpan({ from: 1100, to: 1600 }, 1000) // → '100-600'
 */
export function formatSpan(range: TimeRange, start: number): string {
  return `${Math.round(range.from - start)}-${Math.round(range.to - start)}`;
}

/**
 * The range zoomed by `factor` (< 1 zooms in) around `center` (epoch ms), kept inside [start, end] and at least
 * a millisecond wide. Zooming out past the whole axis gives the whole axis.
 *
 * @example zoom({ from: 0, to: 1000 }, 500, 0.5, 0, 1000) // → { from: 250, to: 750 }
 */
export function zoom(
  range: TimeRange,
  center: number,
  factor: number,
  start: number,
  end: number,
): TimeRange {
  const span = Math.max(1, (range.to - range.from) * factor);
  if (span >= end - start) return { from: start, to: end };
  let from = center - span / 2;
  from = Math.max(start, Math.min(end - span, from));
  return { from, to: from + span };
}
