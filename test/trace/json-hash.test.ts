import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/trace/canonical-json.js';
import { jsonHash, sameJson } from '../../src/trace/json-hash.js';
import type { Json } from '../../src/trace/types.js';

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random JSON from a small alphabet, so equal values come up often. */
function value(next: () => number, depth: number): Json {
  const pick = Math.floor(next() * (depth > 2 ? 5 : 7));
  switch (pick) {
    case 0:
      return ['a', 'b', '', 'é', '0'][Math.floor(next() * 5)]!;
    case 1:
      return [0, 1, -1, 0.5, 1e21, -0][Math.floor(next() * 6)]!;
    case 2:
      return next() < 0.5;
    case 3:
      return null;
    case 4:
      return Math.floor(next() * 3);
    case 5:
      return Array.from({ length: Math.floor(next() * 3) }, () => value(next, depth + 1));
    default: {
      const out: Record<string, Json> = {};
      for (const key of ['x', 'y', 'z', '__proto__']) {
        if (next() < 0.5)
          Object.defineProperty(out, key, {
            value: value(next, depth + 1),
            enumerable: true,
            writable: true,
            configurable: true,
          });
      }
      return out;
    }
  }
}

/** The same value with every object's keys in reverse order. */
function reordered(v: Json): Json {
  if (Array.isArray(v)) return v.map(reordered);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, Json> = {};
  for (const key of Object.keys(v).reverse()) {
    Object.defineProperty(out, key, {
      value: reordered(v[key] as Json),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

describe('jsonHash and sameJson', () => {
  it('agree with canonical JSON on thousands of random pairs', () => {
    const next = random(7);
    let equalPairs = 0;
    // Checked in plain code, the disagreements asserted once: thousands of expect() calls cost more than hashing.
    const disagree: unknown[] = [];
    for (let i = 0; i < 5000; i++) {
      const a = value(next, 0);
      const b = next() < 0.3 ? reordered(a) : value(next, 0);
      const equal = canonicalJson(a) === canonicalJson(b);
      if (equal) equalPairs++;
      if (sameJson(a, b) !== equal) disagree.push({ a, b, canonicalEqual: equal, sameJson: !equal });
      if (equal && jsonHash(a) !== jsonHash(b)) disagree.push({ a, b, hashes: [jsonHash(a), jsonHash(b)] });
    }
    expect(disagree).toEqual([]);
    // The alphabet is small on purpose: both outcomes must be well exercised.
    expect(equalPairs).toBeGreaterThan(1000);
    expect(equalPairs).toBeLessThan(4000);
  });

  it('treats undefined members as absent, undefined items as null and -0 as 0, as JSON does', () => {
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonHash({ a: 1, b: undefined } as unknown as Json)).toBe(jsonHash({ a: 1 }));
    expect(sameJson([undefined], [null])).toBe(true);
    expect(sameJson(-0, 0)).toBe(true);
    expect(jsonHash(-0)).toBe(jsonHash(0));
  });

  it('tells apart what canonical JSON tells apart', () => {
    const distinct: Json[] = [
      null,
      0,
      '0',
      false,
      [],
      {},
      [null],
      { a: null },
      { a: 1 },
      { b: 1 },
      [1, 2],
      [2, 1],
      'ab',
      ['a', 'b'],
    ];
    for (const a of distinct) {
      for (const b of distinct) expect(sameJson(a, b)).toBe(a === b);
    }
    expect(new Set(distinct.map((v) => jsonHash(v))).size).toBe(distinct.length);
  });
});
