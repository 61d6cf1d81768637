import { describe, expect, it } from 'vitest';
import { encodeLine, encodeMessageLine, timestamp } from '../../src/trace/encode.js';
import type { MessageLine } from '../../src/trace/types.js';

const line = (raw: MessageLine['raw']): MessageLine => ({
  t: '2026-11-29T00:00:00.000Z',
  seq: 7,
  dir: 'in',
  raw,
});

describe('encodeMessageLine', () => {
  it('reuses the wire text for raw and reads back the same as encodeLine', () => {
    const wire = '{ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "échø"} }';
    const msg = line(JSON.parse(wire));
    const text = encodeMessageLine(msg, wire);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.split('\n')).toHaveLength(2);
    expect(text).toContain(wire);
    expect(JSON.parse(text)).toEqual(JSON.parse(encodeLine(msg)));
  });

  it('keeps extra envelope fields such as server and conn', () => {
    const msg = { ...line({ id: 2 }), server: 'a', conn: 'c1' };
    expect(JSON.parse(encodeMessageLine(msg, '{"id":2}'))).toEqual({ ...msg });
  });

  it('re-encodes wire text holding a carriage return between tokens', () => {
    const wire = '{"id":3,\r"method":"ping"}';
    const msg = line(JSON.parse(wire));
    expect(encodeMessageLine(msg, wire)).toBe(encodeLine(msg));
    expect(encodeLine(msg)).not.toContain('\r');
  });

  it.each([
    ['U+2028', '{"id":3,"method":"p\u2028ing"}'],
    ['U+2029', '{"id":3,"method":"p\u2029ing"}'],
  ])('escapes a raw %s inside a string, so no line reader can split the line', (_name, wire) => {
    const msg = line(JSON.parse(wire));
    for (const text of [encodeMessageLine(msg, wire), encodeLine(msg)]) {
      expect(/[\u2028\u2029]/.test(text)).toBe(false);
      expect(JSON.parse(text)).toEqual(msg);
    }
  });
});

describe('timestamp', () => {
  it('formats ISO-8601 UTC with milliseconds and gives each millisecond its own text', () => {
    expect(timestamp(Date.UTC(2026, 10, 29, 21, 33, 15, 123))).toBe('2026-11-29T21:33:15.123Z');
    expect(timestamp(Date.UTC(2026, 10, 29, 21, 33, 15, 124))).toBe('2026-11-29T21:33:15.124Z');
    expect(timestamp(Date.UTC(2026, 10, 29, 21, 33, 15, 124))).toBe('2026-11-29T21:33:15.124Z');
  });
});
