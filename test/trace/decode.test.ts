import { describe, expect, it } from 'vitest';
import { decodeLine, decodeValue } from '../../src/trace/decode.js';
import { encodeLine } from '../../src/trace/encode.js';
import type { TraceLine } from '../../src/trace/types.js';

const T = '2026-01-01T00:00:00.000Z';

describe('decodeLine', () => {
  it('reads a message line, which has no type, from dir and raw', () => {
    const decoded = decodeLine(
      `{"t":"${T}","seq":1,"dir":"in","raw":{"jsonrpc":"2.0","method":"ping","id":1}}`,
    );
    expect(decoded).toEqual({
      kind: 'line',
      line: { t: T, seq: 1, dir: 'in', raw: { jsonrpc: '2.0', method: 'ping', id: 1 } },
    });
  });

  it('reads an mcp-tape message line without seq', () => {
    expect(decodeLine(`{"t":"${T}","dir":"out","raw":{"id":0,"result":{}}}`).kind).toBe('line');
  });

  it('gives back every line encodeLine writes', () => {
    const lines: TraceLine[] = [
      { v: 1, type: 'meta', startedAt: T, label: 'x', kind: 'mcp', traceId: 'abc', segment: 0 },
      { t: T, seq: 1, dir: 'in', raw: [{ jsonrpc: '2.0', method: 'a' }], server: 's', conn: 'c' },
      { t: T, seq: 2, type: 'text', dir: 'out', text: 'banner' },
      { t: T, seq: 3, type: 'stderr', text: 'oops' },
      { t: T, seq: 4, type: 'http', conn: '1', dir: 'in', method: 'POST', headers: { a: 'b' } },
      { t: T, seq: 5, type: 'event', name: 'spawn', pid: 12 },
      { t: T, type: 'end', durationMs: 5, reason: 'process_exit', counts: { in: 1 } },
    ];
    for (const line of lines) expect(decodeLine(encodeLine(line).trimEnd())).toEqual({ kind: 'line', line });
  });

  it('keeps unknown fields (so convert loses nothing)', () => {
    const decoded = decodeLine(`{"t":"${T}","dir":"in","raw":1,"futureField":{"x":1}}`);
    expect(decoded.kind === 'line' && decoded.line.futureField).toEqual({ x: 1 });
  });

  it('passes an unknown type through as unknown, not as an error', () => {
    expect(decodeLine(`{"t":"${T}","type":"hologram","beam":1}`)).toEqual({
      kind: 'unknown',
      type: 'hologram',
    });
  });

  it.each([
    ['{"t":', /^not valid JSON \(/],
    ['[1,2]', /^expected a JSON object, got an array$/],
    ['"text"', /^expected a JSON object, got "text"$/],
    ['{"hello":1}', /^not a trace line: it has no "type" and no "dir"\/"raw"$/],
    [`{"t":"${T}","dir":"sideways","raw":1}`, /^message line: "dir" must be "in" or "out", got "sideways"$/],
    [`{"t":"${T}","dir":"in"}`, /^message line: has no "raw"$/],
    ['{"dir":"in","raw":1}', /^message line: "t" must be a string, got nothing$/],
    [`{"t":"${T}","seq":"7","dir":"in","raw":1}`, /"seq" must be an integer, got "7"/],
    ['{"type":"meta","v":1,"label":"x"}', /^meta line: "startedAt" must be a string, got nothing$/],
    [`{"t":"${T}","type":"end"}`, /^end line: "durationMs" must be a number/],
    [`{"t":"${T}","type":"event"}`, /^event line: "name" must be a string/],
    [`{"t":"${T}","type":"http","dir":"in","conn":"1"}`, /^http line: "headers" must be an object/],
    ['{"type":7}', /^"type" must be a string, got 7$/],
  ])('says what is wrong with %s', (text, reason) => {
    const decoded = decodeLine(text);
    expect(decoded.kind).toBe('invalid');
    if (decoded.kind === 'invalid') expect(decoded.reason).toMatch(reason);
  });

  it('decodes already-parsed values too', () => {
    expect(decodeValue({ t: T, type: 'stderr', text: 'x' }).kind).toBe('line');
    expect(decodeValue(null)).toEqual({ kind: 'invalid', reason: 'expected a JSON object, got null' });
  });
});
