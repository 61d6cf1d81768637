import { describe, expect, it } from 'vitest';
import { finderOf, pieces } from '../../../viewer/src/data/highlight.js';

describe('marking search matches', () => {
  it('finds plain text case-insensitively, special characters taken literally', () => {
    const find = finderOf('sum', false)!;
    expect(find('get-sum: the SUM')).toEqual([
      [4, 7],
      [13, 16],
    ]);
    expect(finderOf('a.b', false)!('axb a.b')).toEqual([[4, 7]]);
  });

  it('finds a regular expression, skipping empty matches', () => {
    expect(finderOf('"a":\\s*\\d+', true)!('{"a": 40, "b": 2}')).toEqual([[1, 8]]);
    expect(finderOf('x*', true)!('abxxc')).toEqual([[2, 4]]);
  });

  it('finds nothing for an empty search or an expression that does not compile', () => {
    expect(finderOf('  ', false)).toBeUndefined();
    expect(finderOf('(', true)).toBeUndefined();
  });

  it('cuts a text at its matches', () => {
    expect(pieces('get-sum', [[4, 7]])).toEqual([
      { text: 'get-', hit: false },
      { text: 'sum', hit: true },
    ]);
    expect(pieces('abc', [])).toEqual([{ text: 'abc', hit: false }]);
  });
});
