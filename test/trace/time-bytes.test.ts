import { describe, expect, it } from 'vitest';
import { isoTimeAt, parseTime, scanTimedSpan, TimedLine } from '../../src/trace/time.js';

const encode = (text: string) => new TextEncoder().encode(text);

describe('isoTimeAt', () => {
  it('reads every time toISOString writes in four-digit years as Date.parse does', () => {
    let checked = 0;
    // A step that is no whole number of days or seconds: every field takes many values, leap days among them.
    for (let ms = Date.parse('0000-01-01T00:00:00.000Z'); ms < 253402300799999; ms += 9_876_543_210_7) {
      const text = new Date(ms).toISOString();
      expect(isoTimeAt(encode(` ${text}`), 1)).toBe(ms);
      expect(parseTime(text)).toBe(ms);
      checked++;
    }
    expect(checked).toBeGreaterThan(2000);
    expect(isoTimeAt(encode('2024-02-29T23:59:59.999Z'), 0)).toBe(Date.parse('2024-02-29T23:59:59.999Z'));
  });

  it.each([
    ['a day the month has not', '2026-02-29T00:00:00.000Z'],
    ['a day no month has', '2026-04-31T00:00:00.000Z'],
    ['hour 24', '2026-01-01T24:00:00.000Z'],
    ['a leap second', '2026-01-01T00:00:60.000Z'],
    ['month 13', '2026-13-01T00:00:00.000Z'],
    ['an offset', '2026-01-01T00:00:00.000+0'],
    ['no milliseconds', '2026-01-01T00:00:00Z....'],
    ['a letter for a digit', '2026-01-0xT00:00:00.000Z'],
    ['too few bytes', '2026-01-01T00:00:00.000'],
  ])('declines %s', (_, text) => {
    expect(isoTimeAt(encode(text), 0)).toBe(-1);
  });
});

describe('scanTimedSpan', () => {
  const line = (t: string, extra = '') =>
    `{"t":"${t}","seq":1,"dir":"in"${extra},"raw":{"jsonrpc":"2.0","id":1,"method":"ping"}}`;

  it('reads a tapedeck time as a number, its text made on demand, and finds where the line ends', () => {
    const text = `${line('2026-01-01T00:00:01.250Z')}\r\n${line('2026-01-01T00:00:02.000Z')}`;
    const bytes = encode(text);
    const first = scanTimedSpan(bytes, 0, bytes.length);
    expect(first?.line).toBeInstanceOf(TimedLine);
    expect((first?.line as unknown as TimedLine | undefined)?.time).toBe(
      Date.parse('2026-01-01T00:00:01.250Z'),
    );
    expect(first?.line.t).toBe('2026-01-01T00:00:01.250Z');
    expect(first?.end).toBe(text.indexOf('\r'));
    const second = scanTimedSpan(bytes, text.indexOf('\n') + 1, bytes.length);
    expect(second?.line.t).toBe('2026-01-01T00:00:02.000Z');
    expect(second?.end).toBe(bytes.length);
  });

  it('keeps other times as text, and leaves a second t or a time field to the ordinary reader', () => {
    for (const t of ['2026-02-30T00:00:00.000Z', '2026-01-01T00:00:00Z', 'soon']) {
      const found = scanTimedSpan(encode(line(t)), 0, line(t).length);
      expect(found?.line).not.toBeInstanceOf(TimedLine);
      expect(found?.line.t).toBe(t);
    }
    const twice = line('2026-01-01T00:00:00.000Z', ',"t":"2026-01-01T00:00:00.001Z"');
    expect(scanTimedSpan(encode(twice), 0, twice.length)).toBeUndefined();
    const timed = line('2026-01-01T00:00:00.000Z', ',"time":5');
    expect(scanTimedSpan(encode(timed), 0, timed.length)).toBeUndefined();
  });
});
