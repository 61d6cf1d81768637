import { beforeAll, describe, expect, it } from 'vitest';
import type { TraceModel } from '../../../viewer/src/data/model.js';
import {
  axisTicks,
  formatSpan,
  parseSpan,
  tickLabel,
  tickStep,
  zoom,
} from '../../../viewer/src/data/time-axis.js';
import {
  barBox,
  barsIn,
  density,
  fitRange,
  fits,
  thinMarks,
  type WaterfallBar,
  waterfallOf,
} from '../../../viewer/src/data/waterfall.js';
import { openModel, text } from '../open-model.js';
import { MCP_TAPE } from '../traces.js';
import { SAMPLE, START } from './sample.js';

describe('the waterfall', () => {
  let model: TraceModel;
  beforeAll(async () => {
    model = await openModel({ 'd0/calc.jsonl': SAMPLE });
  });

  it('gives every request a bar from when it was sent to when it was answered', () => {
    const { bars, start, end, untimed } = waterfallOf(model.rows(), model.start());
    expect(untimed).toBe(0);
    expect(start).toBe(START);
    // The end line is the last row with a time.
    expect(end).toBe(START + 90);
    expect(
      bars.map((b) => [b.label, b.start - START, b.end === undefined ? undefined : b.end - START]),
    ).toEqual([
      ['initialize', 1, 9],
      ['tools/list', 10, 12],
      ['tools/call add', 20, 31],
      ['tools/call divide', 40, 44],
      ['tools/call fail', 50, 53],
      ['resources/read file:///a.txt', 60, 62],
      ['ping', 70, undefined],
      ['tools/call slow', 80, undefined],
    ]);
    const add = bars[2]!;
    expect(add).toMatchObject({ key: '0.6', outcome: 'ok', latency: 11, dir: 'in', depth: 0 });
    expect(add.marks).toEqual([{ time: START + 25, kind: 'progress', guess: false }]);
    // Progress without a total: how far is unknown, but it is there.
    expect(add.progress).toMatchObject({ progress: 1, total: undefined, fraction: undefined, count: 1 });
    expect(bars[3]!.outcome).toBe('error');
    expect(bars[7]!.outcome).toBe('unanswered');
  });

  it('nests the server’s requests under the call they were made for, marking a guess as a guess', async () => {
    const everything = await openModel({ 'd0/everything.jsonl': text(MCP_TAPE) });
    const { bars } = waterfallOf(everything.rows(), everything.start());
    const sampling = bars.findIndex((b) => b.label === 'tools/call trigger-sampling-request');
    const child = bars[sampling + 1]!;
    expect(child).toMatchObject({ label: 'sampling/createMessage', dir: 'out', depth: 1, guess: true });
    expect(child.start).toBeGreaterThanOrEqual(bars[sampling]!.start);
    expect(child.end!).toBeLessThanOrEqual(bars[sampling]!.end!);
    const long = bars.find((b) => b.label === 'tools/call trigger-long-running-operation')!;
    expect(long.progress).toMatchObject({ progress: 4, total: 4, fraction: 1, count: 4 });
    expect(long.marks.filter((m) => m.kind === 'progress')).toHaveLength(4);
    expect(long.latency).toBeGreaterThan(2000);
  });

  it('places bars in a range, clipped at its ends, and leaves out those outside it', () => {
    const bar = { start: 100, end: 350 } as WaterfallBar;
    expect(barBox(bar, { from: 0, to: 1000 }, 1000)).toEqual({
      left: 0.1,
      width: 0.25,
      before: false,
      after: false,
    });
    expect(barBox(bar, { from: 200, to: 300 }, 1000)).toEqual({
      left: 0,
      width: 1,
      before: true,
      after: true,
    });
    expect(barBox(bar, { from: 400, to: 500 }, 1000)).toBeUndefined();
    // An open request runs to the end of what the trace holds.
    const open = { start: 900, end: undefined } as WaterfallBar;
    expect(barBox(open, { from: 0, to: 1000 }, 950)).toEqual({
      left: 0.9,
      width: 0.05,
      before: false,
      after: true,
    });
    expect(barsIn([bar, open], { from: 400, to: 920 }, 950)).toEqual([open]);
  });

  it('thins thousands of marks to a drawable few, keeping the first and the last', () => {
    const marks = Array.from({ length: 5000 }, (_, i) => i);
    const thin = thinMarks(marks, 100);
    expect(thin).toHaveLength(100);
    expect(thin[0]).toBe(0);
    expect(thin[99]).toBe(4999);
    expect(thinMarks([1, 2, 3], 100)).toEqual([1, 2, 3]);
  });

  it('counts the requests in flight per slice of the axis for the overview', () => {
    const bars = [
      { start: 0, end: 499 },
      { start: 250, end: 749 },
      { start: 900, end: undefined },
    ] as WaterfallBar[];
    expect(density(bars, { from: 0, to: 1000 }, 1000, 4)).toEqual([1, 2, 1, 1]);
  });
});

describe('the waterfall’s axis fitted to the rows in view', () => {
  it('spans the bars at hand with a little room, an open bar from its start only', () => {
    expect(fitRange([{ start: 1000, end: 1100 }, undefined, { start: 1050, end: 1300 }])).toEqual({
      from: 988,
      to: 1312,
    });
    expect(fitRange([{ start: 5000, end: undefined }])).toEqual({ from: 4994.6, to: 5005.4 });
    expect(fitRange([undefined])).toBeUndefined();
  });

  it('fits on its own only where the whole trace would draw the rows as slivers, or when asked', () => {
    const fiveHours = { from: 0, to: 5 * 3_600_000 };
    const minute = { from: 60_000, to: 120_000 };
    expect(fits(undefined, minute, fiveHours)).toBe(true);
    expect(fits('whole', minute, fiveHours)).toBe(false);
    // Rows in view over two of fourteen seconds read well on the whole axis.
    expect(fits(undefined, { from: 0, to: 2000 }, { from: 0, to: 14_100 })).toBe(false);
    expect(fits('fit', { from: 0, to: 2000 }, { from: 0, to: 14_100 })).toBe(true);
    expect(fits('fit', undefined, fiveHours)).toBe(false);
  });
});

describe('the waterfall’s time axis', () => {
  it('picks round steps and labels them in the unit the step needs', () => {
    expect(tickStep(10_000, 8)).toBe(2000);
    expect(tickStep(90, 8)).toBe(20);
    expect(tickStep(3, 8)).toBe(1);
    expect(axisTicks({ from: 1000, to: 11_000 }, 1000, 5)).toEqual({
      step: 2000,
      ticks: [0, 2000, 4000, 6000, 8000, 10_000],
    });
    // A zoomed range starts at the first multiple of the step inside it.
    expect(axisTicks({ from: 1150, to: 1400 }, 1000, 5).ticks).toEqual([150, 200, 250, 300, 350, 400]);
    expect(tickLabel(1500, 500)).toBe('1500 ms');
    expect(tickLabel(4000, 2000)).toBe('4 s');
    expect(tickLabel(2500, 500 * 3)).toBe('2.5 s');
    // Far into a long trace, a clock with the decimals the step needs.
    expect(tickLabel(3_723_250, 50)).toBe('1:02:03.25');
    expect(tickLabel(16_200_000, 60_000)).toBe('4:30:00');
    expect(tickLabel(90_500, 500)).toBe('1:30.5');
  });

  it('keeps a zoomed range in the link, inside the trace, and zooms around a point', () => {
    expect(parseSpan('100-600', 1000, 5000)).toEqual({ from: 1100, to: 1600 });
    expect(parseSpan('100-99999', 1000, 5000)).toEqual({ from: 1100, to: 5000 });
    expect(parseSpan('600-100', 1000, 5000)).toBeUndefined();
    expect(parseSpan('abc', 1000, 5000)).toBeUndefined();
    expect(formatSpan({ from: 1100.4, to: 1600 }, 1000)).toBe('100-600');
    expect(zoom({ from: 0, to: 1000 }, 500, 0.5, 0, 1000)).toEqual({ from: 250, to: 750 });
    // Near an end the window slides rather than leaving the trace.
    expect(zoom({ from: 0, to: 1000 }, 950, 0.5, 0, 1000)).toEqual({ from: 500, to: 1000 });
    expect(zoom({ from: 250, to: 750 }, 500, 4, 0, 1000)).toEqual({ from: 0, to: 1000 });
  });
});
