/**
 * A trace line nested absurdly deep: JSON.parse takes it, but every walk over a message after it recurses (pairing,
 * redaction, stats, the timeline, JSON.stringify). The reader reports such a line as corrupt, with its line
 * number, and reads on.
 */
import { describe, expect, it } from 'vitest';
import { decodeLine, MAX_NESTING, nestingProblem, parseFailure } from '../../src/trace/decode.js';
import { DiagnosticLog, readTraceLines } from '../../src/trace/reader.js';
import { nested } from '../helpers/deep-json.js';

const T = '2026-01-01T00:00:00.000Z';
const line = (value: string) =>
  `{"t":"${T}","seq":1,"dir":"in","raw":{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":${value}}}}`;

describe('nesting', () => {
  it.each(['array', 'object'] as const)(
    'reads %s nesting up to the limit and refuses one level more',
    (kind) => {
      // The line itself adds 3 levels (the line, raw, params) around the value.
      expect(nestingProblem(JSON.parse(line(nested(MAX_NESTING - 3, kind))))).toBeUndefined();
      expect(nestingProblem(JSON.parse(line(nested(MAX_NESTING - 2, kind))))).toMatch(
        /^JSON nested deeper than 1000 levels/,
      );
    },
  );

  it('decodes a line two million levels deep to one reason, without a stack overflow', () => {
    expect(decodeLine(line(nested(2_000_000, 'array')))).toEqual({
      kind: 'invalid',
      reason: 'JSON nested deeper than 1000 levels, more than tapedeck reads; skipped',
    });
    expect(decodeLine(line(nested(2_000_000, 'object'))).kind).toBe('invalid');
  });

  it('names a parser that overflowed as the nesting it is', () => {
    expect(parseFailure(new RangeError('Maximum call stack size exceeded'))).toMatch(/^JSON nested deeper/);
    expect(parseFailure(new SyntaxError('Unexpected end'))).toBe('not valid JSON (Unexpected end)');
  });

  it('reports the deep line with its number and reads the lines around it', async () => {
    const text = [
      `{"v":1,"type":"meta","startedAt":"${T}","label":"deep"}`,
      line(nested(2_000_000, 'array')),
      `{"t":"${T}","seq":2,"dir":"in","raw":{"jsonrpc":"2.0","id":2,"method":"ping"}}`,
      '',
    ].join('\n');
    const log = new DiagnosticLog('lenient');
    const read: number[] = [];
    async function* chunks() {
      yield new TextEncoder().encode(text);
    }
    for await (const { lineNo } of readTraceLines(chunks(), {
      file: 'deep.jsonl',
      log,
    }))
      read.push(lineNo);
    expect(read).toEqual([1, 3]);
    expect(log.list).toEqual([
      expect.objectContaining({
        code: 'corrupt_line',
        severity: 'error',
        line: 2,
        message: 'deep.jsonl:2: JSON nested deeper than 1000 levels, more than tapedeck reads; skipped',
      }),
    ]);
  });
});
