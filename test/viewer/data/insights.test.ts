import { describe, expect, it } from 'vitest';
import {
  briefDuration,
  headlines,
  percent,
  tallyTools,
  toolInsight,
  toolTimes,
} from '../../../viewer/src/data/insights.js';
import { fractionOf, progressText } from '../../../viewer/src/data/progress.js';
import { openModel, text } from '../open-model.js';
import { MCP_TAPE } from '../traces.js';
import { SAMPLE } from './sample.js';

describe('where tool time went', () => {
  it('adds up each tool’s calls, total, mean, p95, share and failures, largest first', async () => {
    const model = await openModel({ 'd0/calc.jsonl': SAMPLE });
    const times = toolTimes(tallyTools(model.sources[0]!.exchanges));
    // add 11 ms, divide 4 ms (an error), fail 3 ms (isError), slow never answered.
    expect(times.map((t) => [t.name, t.calls, t.answered, t.totalMs, t.errors])).toEqual([
      ['add', 1, 1, 11, 0],
      ['divide', 1, 1, 4, 1],
      ['fail', 1, 1, 3, 1],
      ['slow', 1, 0, 0, 0],
    ]);
    expect(times[0]!.share).toBeCloseTo(11 / 18);
    expect(times[0]!.meanMs).toBe(11);
    expect(times[3]!.meanMs).toBeUndefined();
    expect(times.reduce((sum, t) => sum + t.share, 0)).toBeCloseTo(1);
    expect(toolInsight(times[0]!)).toBe('add: 61 % of tool time, p95 11 ms');
    expect(toolInsight(times[1]!)).toBe('divide: 22 % of tool time, p95 4 ms, 1 error');
    expect(toolInsight(times[3]!)).toBe('slow: 0 % of tool time, 1 unanswered');
  });

  it('reads a real session: the long-running operation took nearly all the time', async () => {
    const model = await openModel({ 'd0/everything.jsonl': text(MCP_TAPE) });
    const times = toolTimes(tallyTools(model.sources[0]!.exchanges));
    const long = times[0]!;
    expect(long.name).toBe('trigger-long-running-operation');
    expect(long.share).toBeGreaterThan(0.9);
    expect(headlines(times)[0]).toMatch(/^trigger-long-running-operation: 9\d % of tool time, p95 2\.0 s$/);
  });

  it('keeps servers apart when asked, and says nothing of a session without tool calls', () => {
    expect(headlines(toolTimes([]))).toEqual([]);
    const times = toolTimes([
      { name: 'search', server: 'web', calls: 5, errors: 4, latencies: [100, 200, 2300, 300] },
      { name: 'search', server: 'docs', calls: 1, errors: 0, latencies: [50] },
    ]);
    expect(times.map(toolInsight)).toEqual([
      'web · search: 98 % of tool time, p95 2.3 s, 4 errors, 1 unanswered',
      'docs · search: 2 % of tool time, p95 50 ms',
    ]);
  });

  it('writes durations and shares the way a sentence needs them', () => {
    expect([840, 2300, 45_000, 210_000].map(briefDuration)).toEqual(['840 ms', '2.3 s', '45 s', '3.5 min']);
    // Hours and days as people say them, not thousands of seconds.
    expect([5 * 3_600_000 + 3 * 60_000, 3 * 86_400_000 + 4 * 3_600_000].map(briefDuration)).toEqual([
      '5 h 03 min',
      '3 d 4 h',
    ]);
    expect([0, 0.001, 0.614, 1].map(percent)).toEqual(['0 %', '<1 %', '61 %', '100 %']);
  });
});

describe('progress of a call', () => {
  it('is the last progress over the last total, clamped, with the message', () => {
    expect(fractionOf(3, 4)).toBe(0.75);
    expect(fractionOf(5, 4)).toBe(1);
    expect(fractionOf(3, 0)).toBeUndefined();
    expect(fractionOf(3, undefined)).toBeUndefined();
    expect(
      progressText({ progress: 3, total: 5, fraction: 0.6, message: 'Step 3', count: 3, times: [] }),
    ).toBe('3 / 5 · 60 % · Step 3');
    expect(
      progressText({
        progress: 7,
        total: undefined,
        fraction: undefined,
        message: undefined,
        count: 2,
        times: [],
      }),
    ).toBe('7 so far');
  });
});
