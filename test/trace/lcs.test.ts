import { describe, expect, it } from 'vitest';
import { commonSubsequence } from '../../src/trace/lcs.js';

/** The textbook O(N·M) table: the length of a longest common subsequence. */
function lcsLength(a: readonly number[], b: readonly number[]): number {
  let next = new Array<number>(b.length + 1).fill(0);
  for (let i = a.length - 1; i >= 0; i--) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = b.length - 1; j >= 0; j--)
      row[j] =
        a[i] === b[j] ? (next[j + 1] as number) + 1 : Math.max(next[j] as number, row[j + 1] as number);
    next = row;
  }
  return next[0] as number;
}

/** A small deterministic generator, so a failure names a reproducible case. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** The first pair that is out of order or pairs different keys (undefined when all is well). */
function badPair<K>(a: readonly K[], b: readonly K[], pairs: Array<[number, number]>): unknown {
  let last: [number, number] = [-1, -1];
  for (const [i, j] of pairs) {
    if (i <= last[0] || j <= last[1] || a[i] !== b[j]) return { i, j, after: last };
    last = [i, j];
  }
  return undefined;
}

function expectCommon<K>(a: readonly K[], b: readonly K[], pairs: Array<[number, number]>): void {
  expect(badPair(a, b, pairs)).toBeUndefined();
}

describe('commonSubsequence', () => {
  it('matches a longest common subsequence, as the full table says, on random small sequences', () => {
    const next = random(7);
    // Checked in plain code, the failures asserted once: thousands of expect() calls cost more than the search.
    const failures: unknown[] = [];
    for (let round = 0; round < 3000; round++) {
      const alphabet = 1 + Math.floor(next() * 8);
      const a = Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * alphabet));
      const b = Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * alphabet));
      const pairs = commonSubsequence(a, b);
      const bad = badPair(a, b, pairs);
      const longest = lcsLength(a, b);
      if (bad !== undefined || pairs.length !== longest)
        failures.push({ a, b, bad, found: pairs.length, longest });
    }
    expect(failures).toEqual([]);
  });

  it('names the matched positions in both sequences', () => {
    expect(commonSubsequence(['a', 'b', 'c', 'd'], ['b', 'x', 'c', 'd', 'e'])).toEqual([
      [1, 0],
      [2, 2],
      [3, 3],
    ]);
    expect(commonSubsequence([], ['a'])).toEqual([]);
    expect(commonSubsequence(['a', 'a'], ['a', 'a', 'a'])).toEqual([
      [0, 0],
      [1, 1],
    ]);
  });

  it('still returns a common subsequence when the search budget runs out', () => {
    const next = random(11);
    const a = Array.from({ length: 400 }, () => Math.floor(next() * 5));
    const b = Array.from({ length: 400 }, () => Math.floor(next() * 5));
    const capped = commonSubsequence(a, b, { maxCost: 3 });
    expectCommon(a, b, capped);
    expect(capped.length).toBeGreaterThan(0);
    expect(capped.length).toBeLessThanOrEqual(lcsLength(a, b));
  });

  it('lines up long sequences that differ in a few places without a full table', () => {
    const a = Array.from({ length: 20_000 }, (_, i) => `k${i % 97}`);
    const b = a.filter((_, i) => i % 1000 !== 5);
    b.splice(7000, 0, 'new-1', 'new-2');
    const pairs = commonSubsequence(a, b);
    expectCommon(a, b, pairs);
    expect(pairs.length).toBe(b.length - 2);
  });
});
