import { describe, expect, it } from 'vitest';
import { encodeLine, encodeMessageLine, messageHead } from '../../src/trace/encode.js';
import type { MessageLine } from '../../src/trace/types.js';

/** A small deterministic generator (tests must repeat). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x80000000;
  };
}

const TIMES = [
  '2026-01-02T03:04:05.678Z',
  '2026-01-02T03:04:05.679Z',
  '+020000-01-01T00:00:00.000Z',
  'not "a" time',
  'line\u2028sep',
  'back\\slash',
  '',
  'é',
];
const SEQS = [1, 0, -0, 42, 2 ** 53 - 1, 2 ** 53, 1.5, -3];
const RAWS = [{ id: 1 }, [], { jsonrpc: '2.0', method: 'ping', id: 'a"b' }, { text: 'x\u2028y' }];

describe('messageHead', () => {
  it('makes the head JSON.stringify makes, for the stdio shape and any other', () => {
    const next = random(7);
    const pick = <V>(list: readonly V[]) => list[Math.floor(next() * list.length)]!;
    for (let i = 0; i < 2000; i += 1) {
      const t = pick(TIMES);
      const seq = pick(SEQS);
      const dir = next() < 0.9 ? pick(['in', 'out'] as const) : ('sideways' as MessageLine['dir']);
      const raw = pick(RAWS);
      const roll = next();
      // The stdio shape most of the time; otherwise another order, or more fields.
      const line = (
        roll < 0.6
          ? { t, seq, dir, raw }
          : roll < 0.7
            ? { seq, t, dir, raw }
            : roll < 0.8
              ? { t, seq, dir, raw, server: 'a' }
              : roll < 0.9
                ? { t, seq, raw, dir }
                : { t, dir, raw }
      ) as MessageLine;
      // The head as JSON.stringify writes it: the envelope without `raw`, separators escaped, `raw` last.
      const { raw: _raw, ...envelope } = line;
      const stringified = `${JSON.stringify(envelope)
        .slice(0, -1)
        .replace(/\u2028/g, '\\u2028')
        .replace(/\u2029/g, '\\u2029')},"raw":`;
      expect(messageHead(line)).toBe(stringified);
      // For the stdio shape (`raw` last already), the whole line is the old encoder's.
      if (roll < 0.6) expect(encodeMessageLine(line, JSON.stringify(raw))).toBe(encodeLine(line));
    }
  });
});
