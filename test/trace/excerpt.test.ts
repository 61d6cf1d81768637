import { describe, expect, it } from 'vitest';
import { diffExcerpt, firstDifference } from '../../src/trace/excerpt.js';
import { formatValuePair, structuralDiff } from '../../src/trace/json-diff.js';
import { displayWidth } from '../../src/trace/text-width.js';

/** The character each excerpt shows at `at`. */
function shown(excerpt: { a: string; b: string; at: number }): [string, string] {
  return [excerpt.a.slice(excerpt.at, excerpt.at + 1), excerpt.b.slice(excerpt.at, excerpt.at + 1)];
}

describe('the first difference', () => {
  it('is the first code unit that differs, the shorter length for a prefix, -1 for equal text', () => {
    expect(firstDifference('abcX', 'abcY')).toBe(3);
    expect(firstDifference('abc', 'abcdef')).toBe(3);
    expect(firstDifference('abc', 'abc')).toBe(-1);
    expect(firstDifference('', 'a')).toBe(0);
  });
});

describe('excerpts centred on the first difference', () => {
  const prefix = 'The quick brown fox jumps over the lazy dog. '.repeat(4);
  const a = `${prefix}The answer is 42, said the computer, after a long time of thinking.`;
  const b = `${prefix}The answer is 43, said the computer, after a long time of thinking.`;

  it('shows where two long values that share a long start differ', () => {
    const excerpt = diffExcerpt(a, b, 30);
    expect(excerpt.a).not.toBe(excerpt.b);
    expect(shown(excerpt)).toEqual(['2', '3']);
    expect(excerpt.a.startsWith('…')).toBe(true);
    expect(excerpt.a.endsWith('…')).toBe(true);
    expect(excerpt.a.length).toBe(30);
    // The difference sits in the middle: as much context before it as after.
    expect(Math.abs(excerpt.at - (excerpt.a.length - excerpt.at))).toBeLessThanOrEqual(2);
    // Both excerpts start at the same character, so they line up one above the other.
    expect(excerpt.a.slice(0, excerpt.at)).toBe(excerpt.b.slice(0, excerpt.at));
  });

  it('returns values that fit whole, with the difference located', () => {
    expect(diffExcerpt('abc1', 'abc2', 10)).toEqual({ a: 'abc1', b: 'abc2', at: 3, endA: 4, endB: 4 });
    expect(diffExcerpt('same', 'same', 10)).toEqual({ a: 'same', b: 'same', at: -1, endA: -1, endB: -1 });
    // Equal and long: both cut alike.
    expect(diffExcerpt('s'.repeat(50), 's'.repeat(50), 10)).toMatchObject({ a: `${'s'.repeat(9)}…`, at: -1 });
  });

  it('starts at the beginning when the difference is early', () => {
    const excerpt = diffExcerpt(`X${'y'.repeat(100)}`, `Z${'y'.repeat(100)}`, 20);
    expect(excerpt).toEqual({ a: `X${'y'.repeat(18)}…`, b: `Z${'y'.repeat(18)}…`, at: 0, endA: 1, endB: 1 });
  });

  it('uses the room after a difference near the end for more context before it', () => {
    const excerpt = diffExcerpt(`${'x'.repeat(100)}A`, `${'x'.repeat(100)}B`, 20);
    expect(excerpt.a).toBe(`…${'x'.repeat(18)}A`);
    expect(excerpt.b).toBe(`…${'x'.repeat(18)}B`);
    expect(shown(excerpt)).toEqual(['A', 'B']);
  });

  it('shows where one value goes on past the other', () => {
    const excerpt = diffExcerpt(`${'q'.repeat(50)}abc`, `${'q'.repeat(50)}abc${'z'.repeat(50)}`, 20);
    expect(excerpt.a.endsWith('abc')).toBe(true);
    expect(excerpt.b.slice(excerpt.at)).toMatch(/^z+…$/);
    expect(excerpt.a.length).toBe(excerpt.at);
  });

  it('says where the changed part ends on each side', () => {
    const long = 'p'.repeat(500);
    const e = diffExcerpt(`${long}cat${long}`, `${long}dog!${long}`, 40);
    expect(e.a.slice(e.at, e.endA)).toBe('cat');
    expect(e.b.slice(e.at, e.endB)).toBe('dog!');
    // One side only adds text: nothing changed on the other.
    const added = diffExcerpt('"hello"', '"hello world"', 40);
    expect(added).toEqual({ a: '"hello"', b: '"hello world"', at: 6, endA: 6, endB: 12 });
    // A change running past the excerpt ends where the excerpt's text does.
    const past = diffExcerpt(`${long}${'x'.repeat(100)}`, `${long}${'y'.repeat(100)}`, 20);
    expect(past.a.slice(past.at, past.endA)).toMatch(/^x+$/);
    expect(past.a.slice(past.endA)).toBe('…');
  });

  it('counts wide characters as two columns and never splits them', () => {
    const wide = '日本語のテキスト'.repeat(10);
    const excerpt = diffExcerpt(`${wide}甲${wide}`, `${wide}乙${wide}`, 21);
    expect(shown(excerpt)).toEqual(['甲', '乙']);
    expect(displayWidth(excerpt.a)).toBeLessThanOrEqual(21);
    expect(displayWidth(excerpt.b)).toBeLessThanOrEqual(21);
    const emoji = '👨‍👩‍👧‍👦🎉'.repeat(20);
    const e = diffExcerpt(`${emoji}🍎${emoji}`, `${emoji}🍏${emoji}`, 15);
    expect(displayWidth(e.a)).toBeLessThanOrEqual(15);
    expect(e.a.slice(e.at)).toMatch(/^🍎/u);
    expect(e.b.slice(e.at)).toMatch(/^🍏/u);
  });

  it('counts characters instead of columns when asked', () => {
    const wide = '日'.repeat(40);
    const excerpt = diffExcerpt(`${wide}甲${wide}`, `${wide}乙${wide}`, 21, { measure: 'chars' });
    expect([...excerpt.a]).toHaveLength(21);
    expect(shown(excerpt)).toEqual(['甲', '乙']);
  });

  it('reads only around the difference of a very long value', () => {
    const big = 'x'.repeat(5_000_000);
    const started = performance.now();
    const excerpt = diffExcerpt(`${big}1${big}`, `${big}2${big}`, 40);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(shown(excerpt)).toEqual(['1', '2']);
  });
});

describe('diff values cut around their difference', () => {
  it('keeps the change in view when two long strings share their start', () => {
    const base = 'lorem ipsum dolor sit amet '.repeat(5);
    const diff = structuralDiff({ text: `${base}old` }, { text: `${base}new` }, '$', { maxValueLength: 40 });
    const [entry] = diff.entries;
    expect(String(entry?.recorded)).toMatch(/old$/);
    expect(String(entry?.live)).toMatch(/new$/);
    expect(entry?.recorded).not.toBe(entry?.live);
  });

  it('keeps the change in view in two long objects', () => {
    const items = Array.from({ length: 30 }, (_, i) => ({ i }));
    const diff = structuralDiff({ list: items, n: 1 }, { list: items, n: 2 }, '$', { maxValueLength: 30 });
    expect(diff.entries).toEqual([{ path: '$.n', recorded: 1, live: 2 }]);
    const whole = structuralDiff([{ deep: items }, 'a'], [{ deep: items }, 'b'], '$', { maxValueLength: 30 });
    expect(whole.entries.map((e) => e.path)).toEqual(['$[1]']);
    const mixed = structuralDiff({ v: items }, { v: [...items.slice(0, 29), { i: 99 }] }, '$', {
      maxValueLength: 30,
    });
    expect(mixed.entries[0]).toEqual({ path: '$.v[29].i', recorded: 29, live: 99 });
  });

  it('formats a pair of long values for one line around their difference', () => {
    const [a, b] = formatValuePair(`${'x'.repeat(80)}A`, `${'x'.repeat(80)}B`, 20);
    expect(a).toMatch(/A"$/);
    expect(b).toMatch(/B"$/);
    expect(formatValuePair(undefined, 3)).toEqual(['absent', '3']);
  });
});
