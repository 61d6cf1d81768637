import { describe, expect, it } from 'vitest';
import { bytesText } from '../../../viewer/src/data/raw-text.js';
import { wrapLayout } from '../../../viewer/src/data/wrap-layout.js';

describe('wrapped lines laid out without rendering them', () => {
  it('gives each line as many rows as it wraps onto, one for an empty line', () => {
    const lengths = [10, 250, 0];
    const layout = wrapLayout(3, (i) => lengths[i]!, { columns: 100, rowHeight: 20, maxChars: 2000 });
    expect(layout.height).toBe(100);
    expect([layout.top(0), layout.top(1), layout.top(2)]).toEqual([0, 20, 80]);
    expect([layout.heightOf(0), layout.heightOf(1), layout.heightOf(2)]).toEqual([20, 60, 20]);
    expect([
      layout.indexAt(0),
      layout.indexAt(19),
      layout.indexAt(30),
      layout.indexAt(80),
      layout.indexAt(999),
    ]).toEqual([0, 0, 1, 2, 2]);
  });

  it('counts a line cut at the limit as the limit plus its note', () => {
    const layout = wrapLayout(1, () => 1_000_000, {
      columns: 100,
      rowHeight: 10,
      maxChars: 2000,
      noteChars: 40,
    });
    expect(layout.height).toBe(210);
  });

  it('lays out 100k lines at once', () => {
    const layout = wrapLayout(100_000, (i) => i % 300, { columns: 80, rowHeight: 18, maxChars: 2000 });
    expect(layout.indexAt(layout.top(54_321))).toBe(54_321);
  });

  it('reads line lengths from a file without decoding it', () => {
    const raw = bytesText('a.jsonl', new TextEncoder().encode('{"a":1}\r\n\n{"bb":"é"}'));
    expect([raw.lineLength(1), raw.lineLength(2), raw.lineLength(3), raw.lineLength(4)]).toEqual([
      7, 0, 11, 0,
    ]);
  });
});
