import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compile, createRedactor, redactText } from '../../src/redact/index.js';
import type { MessageLine } from '../../src/trace/types.js';

// A complexity check, not a timing target: the figures (10 MB ≤ 20 ms, 10× input ≤ 12× time) are the bench's
// (`npm run bench`). Only the growth is checked here, loosely enough for a busy machine, and it still fails on
// anything quadratic: 10× the input in ≥ 30× the time — or, where memory alone already grows faster than the input
// (a small string in cache, a large one not), in ≥ 3× what one plain pass over the same strings grows by.
const MAX_RATIO = 30;

/** The limit for a growth ratio: 30×, or 3× what a plain memchr pass over the same two strings grows by. */
function limitFor(small: string, large: string): number {
  const pass = (text: string) => () => {
    if (text.includes('\u0000')) throw new Error('unexpected NUL');
  };
  const floor = bestMs(pass(large)) / Math.max(bestMs(pass(small)), 0.05);
  return Math.max(MAX_RATIO, 3 * floor);
}

/** The fastest of a few runs: a busy machine only ever adds time, so the minimum is the steadiest figure. */
function bestMs(run: () => void, rounds = 5): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < rounds; i += 1) {
    const started = performance.now();
    run();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

const image = (data: string): MessageLine => ({
  t: '2026-01-01T00:00:00.000Z',
  seq: 1,
  dir: 'out',
  raw: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'image', data, mimeType: 'image/png' }] } },
});

describe('redaction cost', () => {
  it('takes a 10 MB base64 image through every default rule in linear time, leaving it untouched', () => {
    const redact = createRedactor({ defaults: true, rules: [], mode: 'marker' });
    const big = randomBytes(7_500_000).toString('base64');
    const small = image(big.slice(0, 1_000_000));
    const large = image(big);
    redact(small);
    const smallMs = bestMs(() => expect(redact(small)).toBe(small));
    const largeMs = bestMs(() => expect(redact(large)).toBe(large));
    const limit = limitFor(big.slice(0, 1_000_000), big);
    expect(largeMs / Math.max(smallMs, 0.5)).toBeLessThan(limit);
  });

  it.each([
    ['a run of JWT starts', 'eyJ'],
    ['header lines with no END', '-----BEGIN PRIVATE KEY-----'],
    ['schemes with no credential', 'Bearer '],
    ['user:pass prefixes with no @', '://user:'],
    ['markers', '[REDACTED:x] '],
    ['many real matches', 'sk-abcdefghijklmnopqrstuvwxyz '],
  ])('stays linear on %s', (_what, unit) => {
    const compiled = compile({ defaults: true, rules: [], mode: 'marker' });
    const text = (n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
    const small = text(500_000);
    const large = text(5_000_000);
    redactText(small, compiled);
    const smallMs = bestMs(() => redactText(small, compiled));
    const largeMs = bestMs(() => redactText(large, compiled));
    expect(largeMs / Math.max(smallMs, 0.5)).toBeLessThan(limitFor(small, large));
  });
});
