import { describe, expect, it } from 'vitest';
import { errorShade, formatRate } from '../../../viewer/src/data/error-rate.js';

describe('an error rate for a table of tools', () => {
  it('is a faint tint at one in a thousand and full strength when every call fails', () => {
    expect(errorShade(0, 500)).toBe(0);
    expect(errorShade(1, 1000)).toBe(0.1);
    expect(errorShade(1, 100)).toBe(0.333);
    expect(errorShade(1, 10)).toBe(0.667);
    expect(errorShade(7, 7)).toBe(1);
    // Rarer than one in a thousand still shows.
    expect(errorShade(1, 100_000)).toBe(0.1);
    expect(errorShade(3, 0)).toBe(0);
  });

  it('reads as a percent that never rounds a failure away', () => {
    expect(formatRate(0, 10)).toBe('0%');
    expect(formatRate(1, 2000)).toBe('<0.1%');
    expect(formatRate(1, 1000)).toBe('0.1%');
    expect(formatRate(1, 40)).toBe('2.5%');
    expect(formatRate(1, 2)).toBe('50%');
  });
});
