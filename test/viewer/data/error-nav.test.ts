import { describe, expect, it } from 'vitest';
import { errorPosition, failureOf, nextError } from '../../../viewer/src/data/error-nav.js';
import { isErrorRow } from '../../../viewer/src/data/rows.js';
import { openModel } from '../open-model.js';
import { SAMPLE } from './sample.js';

describe('stepping from one failing call to the next', () => {
  it('walks the failed calls forward and back, wrapping at the ends, one step per call', async () => {
    const model = await openModel({ 'd0/calc.jsonl': SAMPLE });
    const rows = model.rows();
    const red = rows.flatMap((r, i) => (isErrorRow(r) ? [i] : []));
    // Each failure's first red row: a failed request and its red answer count once.
    const firsts = red.filter(
      (i, n) => !red.slice(0, n).some((j) => failureOf(rows[j]!) === failureOf(rows[i]!)),
    );
    expect(firsts.length).toBeGreaterThan(1);
    expect(firsts.length).toBeLessThan(red.length);
    expect(nextError(rows, -1, 1)).toBe(firsts[0]);
    expect(nextError(rows, firsts[0]!, 1)).toBe(firsts[1]);
    expect(nextError(rows, firsts[1]!, -1)).toBe(firsts[0]);
    expect(nextError(rows, firsts.at(-1)!, 1)).toBe(firsts[0]);
    expect(nextError(rows, -1, -1)).toBe(firsts.at(-1));
    expect(errorPosition(rows, firsts[1]!)).toEqual({ count: firsts.length, at: 2 });
    expect(errorPosition(rows, 0)).toEqual({ count: firsts.length, at: undefined });
  });

  it('counts a failed request and its answer as one error, either row selected', async () => {
    const model = await openModel({ 'd0/calc.jsonl': SAMPLE });
    const rows = model.rows();
    const request = rows.findIndex((r) => r.kind === 'request' && isErrorRow(r));
    const answer = rows.findIndex((r) => r.kind === 'response' && r.exchange === rows[request]!.exchange);
    expect(answer).toBeGreaterThan(request);
    expect(errorPosition(rows, answer)).toEqual(errorPosition(rows, request));
    // From the answer, the next step leaves the call: it never lands on its own request or answer.
    const next = nextError(rows, answer, 1)!;
    expect(failureOf(rows[next]!)).not.toBe(rows[request]!.exchange);
  });

  it('finds nothing in a list without failures', () => {
    expect(nextError([], -1, 1)).toBeUndefined();
    expect(errorPosition([], -1)).toEqual({ count: 0, at: undefined });
  });
});
