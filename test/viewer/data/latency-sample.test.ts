import { describe, expect, it } from 'vitest';
import { sampleLatencies, upperFence } from '../../../viewer/src/data/latency-sample.js';

describe('the latencies a chart draws', () => {
  it('draws every value when they fit', () => {
    expect(sampleLatencies([1, 2, 3], 5)).toEqual([1, 2, 3]);
  });

  it('always draws the fastest and the slowest call', () => {
    const sorted = Array.from({ length: 1000 }, (_, i) => i + 1);
    const dots = sampleLatencies(sorted, 400);
    expect(dots).toHaveLength(400);
    expect(dots[0]).toBe(1);
    expect(dots[dots.length - 1]).toBe(1000);
    expect([...dots].sort((a, b) => a - b)).toEqual(dots);
  });

  it('draws every outlier above the upper fence, up to half the dots', () => {
    // 990 calls between 2 and 4 ms, ten slow ones from 50 to 84 ms.
    const body = Array.from({ length: 990 }, (_, i) => 2 + (i % 3));
    const slow = [50, 52, 55, 60, 61, 66, 70, 75, 80, 84];
    const sorted = [...body, ...slow].sort((a, b) => a - b);
    expect(upperFence(sorted)).toBeLessThan(50);
    const dots = sampleLatencies(sorted, 100);
    expect(dots).toHaveLength(100);
    expect(dots.slice(-10)).toEqual(slow);
    expect(dots[0]).toBe(2);
    // Many outliers: half the budget goes to the slowest of them.
    const spread = Array.from({ length: 1000 }, (_, i) => (i < 500 ? 1 : 1000 + i));
    const few = sampleLatencies(spread, 10);
    expect(few).toHaveLength(10);
    expect(few.at(-1)).toBe(1999);
    expect(few[0]).toBe(1);
  });

  it('gives the slowest call when only one dot fits, and none for none', () => {
    expect(sampleLatencies([1, 5, 9], 1)).toEqual([9]);
    expect(sampleLatencies([1, 5, 9], 0)).toEqual([]);
  });
});
