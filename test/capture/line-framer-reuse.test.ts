import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type FramedLine, LineFramer } from '../../src/capture/line-framer.js';

/** What a framer hands out, copied during each call (the bytes of a reusing framer are valid only then). */
function frame(chunks: readonly Buffer[], reuse: boolean, maxLineBytes = 1 << 20): string[] {
  const out: string[] = [];
  const onLine = (line: FramedLine) =>
    out.push(
      line.kind === 'line'
        ? `line ${line.crlf} ${Buffer.from(line.bytes).toString('hex')}`
        : `oversize ${line.size} ${line.sha256}`,
    );
  const framer = new LineFramer({ maxLineBytes, onLine, now: () => 0, reuse });
  for (const chunk of chunks) framer.push(chunk);
  framer.end();
  return out;
}

/** `bytes` cut at a fixed pseudo-random set of places. */
function cut(bytes: Buffer, seed: number): Buffer[] {
  const pieces: Buffer[] = [];
  let state = seed;
  let at = 0;
  while (at < bytes.length) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    const size = 1 + (state % 700);
    pieces.push(bytes.subarray(at, at + size));
    at += size;
  }
  return pieces;
}

describe('LineFramer joining lines in one kept buffer', () => {
  it('hands out the same lines as a framer that copies, however the stream is cut', () => {
    const lines = Array.from({ length: 300 }, (_, i) =>
      i % 7 === 0 ? `{"id":${i},"text":"${'é😀x'.repeat(i * 10)}"}\r` : `{"id":${i}}`,
    );
    const bytes = Buffer.from(`${lines.join('\n')}\nno newline at the end`);
    for (const seed of [1, 2, 3]) {
      const pieces = cut(bytes, seed);
      expect(frame(pieces, true)).toEqual(frame(pieces, false));
    }
  });

  it('grows for a long line, and hashes a line past the limit from what it had joined', () => {
    const long = Buffer.from(`${'a'.repeat(200_000)}\n${'b'.repeat(5000)}\nshort\n`);
    const pieces = cut(long, 9);
    const reused = frame(pieces, true, 4096);
    expect(reused).toEqual(frame(pieces, false, 4096));
    const digest = createHash('sha256').update('a'.repeat(200_000)).digest('hex');
    expect(reused[0]).toBe(`oversize 200000 ${digest}`);
    expect(reused.at(-1)).toBe(`line false ${Buffer.from('short').toString('hex')}`);
  });
});
