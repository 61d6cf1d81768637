import { describe, expect, it } from 'vitest';
import { diffExcerpts } from '../../../viewer/src/data/excerpt.js';

const join = (e: { before: string; changed: string; after: string }) => e.before + e.changed + e.after;

describe('an excerpt around the first difference of two long values', () => {
  it('centres both sides on the difference, with the same text before it', () => {
    const prefix = 'p'.repeat(500);
    const [a, b] = diffExcerpts(`${prefix}cat${'y'.repeat(500)}`, `${prefix}dog${'y'.repeat(500)}`, 40);
    expect(a).toEqual({
      before: 'p'.repeat(13),
      changed: 'cat',
      after: 'y'.repeat(24),
      cutStart: true,
      cutEnd: true,
    });
    expect(b.changed).toBe('dog');
    expect(b.before).toBe(a.before);
    expect(join(a).length).toBe(40);
  });

  it('keeps short values whole and marks a side that only adds text', () => {
    const [a, b] = diffExcerpts('"hello"', '"hello world"', 40);
    expect(a).toEqual({ before: '"hello', changed: '', after: '"', cutStart: false, cutEnd: false });
    expect(b).toEqual({ before: '"hello', changed: ' world', after: '"', cutStart: false, cutEnd: false });
  });

  it('shows a difference in the first characters from the start, and equal texts whole', () => {
    const [a] = diffExcerpts(`x${'s'.repeat(300)}`, `y${'s'.repeat(300)}`, 50);
    expect([a.before, a.changed, a.cutStart, a.cutEnd]).toEqual(['', 'x', false, true]);
    const [same] = diffExcerpts('abc', 'abc', 10);
    expect(join(same)).toBe('abc');
  });

  it('cuts a long changed part at the width and never splits a character', () => {
    const [a] = diffExcerpts(
      `${'a'.repeat(100)}${'😀'.repeat(100)}`,
      `${'a'.repeat(100)}${'z'.repeat(200)}`,
      31,
    );
    const shown = join(a);
    expect(shown.length).toBe(32);
    expect(shown).not.toMatch(/[\uD800-\uDBFF]$/);
    expect(a.cutEnd).toBe(true);
    expect(a.changed.startsWith('😀')).toBe(true);
  });
});
