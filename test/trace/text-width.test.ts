import { describe, expect, it } from 'vitest';
import { clipWidth, displayWidth, graphemes, graphemeWidth } from '../../src/trace/text-width.js';

describe('display width', () => {
  it('counts printable ASCII one column a character', () => {
    expect(displayWidth('')).toBe(0);
    expect(displayWidth('tools/call echo #5')).toBe(18);
  });

  it('counts East Asian wide and fullwidth characters as two columns', () => {
    expect(displayWidth('日本語')).toBe(6);
    expect(displayWidth('한국어')).toBe(6);
    expect(displayWidth('カタカナ')).toBe(8);
    expect(displayWidth('ＡＢＣ')).toBe(6);
    expect(displayWidth('\u3000')).toBe(2);
    // A CJK extension B ideograph, outside the basic plane.
    expect(displayWidth('𠀋')).toBe(2);
    // Halfwidth katakana and Latin with accents stay narrow.
    expect(displayWidth('ｶﾀｶﾅ')).toBe(4);
    expect(displayWidth('café')).toBe(4);
  });

  it('counts emoji as two columns, whole sequences included', () => {
    expect(displayWidth('🎉')).toBe(2);
    // A ZWJ family, a skin tone, a flag, a keycap and a heart asked to show as an emoji (VS16).
    expect(displayWidth('👨‍👩‍👧‍👦')).toBe(2);
    expect(displayWidth('👍🏽')).toBe(2);
    expect(displayWidth('🇯🇵')).toBe(2);
    expect(displayWidth('1️⃣')).toBe(2);
    expect(displayWidth('❤️')).toBe(2);
    // The same heart without the selector is a text symbol.
    expect(displayWidth('❤')).toBe(1);
    expect(displayWidth('ok 🎉 done')).toBe(10);
  });

  it('counts combining marks, joiners and controls as nothing', () => {
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('\u0301')).toBe(0);
    expect(displayWidth('a\u200bb')).toBe(2);
    expect(displayWidth('\u0007')).toBe(0);
    expect(graphemeWidth('')).toBe(0);
  });

  it('splits text into the characters people see', () => {
    expect([...graphemes('e\u0301👍🏽a')]).toEqual(['e\u0301', '👍🏽', 'a']);
  });
});

describe('clipping to a width', () => {
  it('keeps text that fits and cuts the rest with an ellipsis', () => {
    expect(clipWidth('short', 10)).toBe('short');
    expect(clipWidth('abcdefghij', 5)).toBe('abcd…');
    expect(clipWidth('abc', 0)).toBe('');
    expect(clipWidth('abc', 1)).toBe('…');
  });

  it('never lets a wide character straddle the edge or splits a sequence', () => {
    expect(clipWidth('日本語のテキスト', 7)).toBe('日本語…');
    expect(clipWidth('日本語のテキスト', 8)).toBe('日本語…');
    expect(clipWidth('日本', 1)).toBe('…');
    const family = '👨‍👩‍👧‍👦';
    expect(clipWidth(`${family}${family}${family}`, 5)).toBe(`${family}${family}…`);
    for (const width of [3, 4, 5, 6, 7]) {
      const text = clipWidth('ab日本🎉e\u0301xyz', width);
      expect(displayWidth(text)).toBeLessThanOrEqual(width);
    }
  });
});
