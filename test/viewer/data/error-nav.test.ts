import { describe, expect, it } from 'vitest';
import { errorPosition, nextError } from '../../../viewer/src/data/error-nav.js';
import { isErrorRow } from '../../../viewer/src/data/rows.js';
import { openModel } from '../open-model.js';
import { SAMPLE } from './sample.js';

describe('stepping from one failed row to the next', () => {
  it('walks the red rows forward and back, wrapping at the ends', async () => {
    const model = await openModel({ 'd0/calc.jsonl': SAMPLE });
    const rows = model.rows();
    const red = rows.flatMap((r, i) => (isErrorRow(r) ? [i] : []));
    expect(red.length).toBeGreaterThan(3);
    expect(nextError(rows, -1, 1)).toBe(red[0]);
    expect(nextError(rows, red[0]!, 1)).toBe(red[1]);
    expect(nextError(rows, red[1]!, -1)).toBe(red[0]);
    expect(nextError(rows, red.at(-1)!, 1)).toBe(red[0]);
    expect(nextError(rows, -1, -1)).toBe(red.at(-1));
    expect(errorPosition(rows, red[1]!)).toEqual({ count: red.length, at: 2 });
    expect(errorPosition(rows, 0)).toEqual({ count: red.length, at: undefined });
  });

  it('finds nothing in a list without failures', () => {
    expect(nextError([], -1, 1)).toBeUndefined();
  });
});
