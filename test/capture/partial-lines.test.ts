import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PartialLines } from '../../src/capture/partial-lines.js';

interface Seen {
  text: string;
  atMs: number;
  partial: boolean;
}

function lines(options: { waitMs?: number; tailWaitMs?: number; maxBytes?: number } = {}) {
  const seen: Seen[] = [];
  const framer = new PartialLines({
    waitMs: options.waitMs ?? 1000,
    tailWaitMs: options.tailWaitMs ?? 10_000,
    maxBytes: options.maxBytes ?? 64 * 1024,
    now: () => Date.now(),
    onLine: (bytes, atMs, partial) => seen.push({ text: bytes.toString('utf8'), atMs, partial }),
  });
  return { framer, seen };
}

describe('PartialLines', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(0);
  });
  afterEach(() => vi.useRealTimers());

  it('joins a line written in several chunks before anyone sees it', () => {
    const { framer, seen } = lines();
    framer.push(Buffer.from('key ghp_Zq4Rt8Wm'));
    vi.advanceTimersByTime(400);
    framer.push(Buffer.from('2Np6Ks0Lx3Vb end\nnext'));
    expect(seen).toEqual([{ text: 'key ghp_Zq4Rt8Wm2Np6Ks0Lx3Vb end', atMs: 0, partial: false }]);
    framer.end();
    expect(seen.at(-1)).toEqual({ text: 'next', atMs: 400, partial: false });
  });

  it('records a line that never ends after the wait, up to its last blank, and keeps the word after it', () => {
    const { framer, seen } = lines();
    framer.push(Buffer.from('Enter the code sk-ant-api03-Pz8Ow7'));
    vi.advanceTimersByTime(1000);
    expect(seen).toEqual([{ text: 'Enter the code ', atMs: 0, partial: true }]);
    framer.push(Buffer.from('Ni6Mu5\n'));
    expect(seen.at(-1)).toEqual({ text: 'sk-ant-api03-Pz8Ow7Ni6Mu5', atMs: 1000, partial: false });
  });

  it('records a word with no blank to cut at once it has waited long enough', () => {
    const { framer, seen } = lines({ waitMs: 100, tailWaitMs: 500 });
    framer.push(Buffer.from('progress=12%'));
    vi.advanceTimersByTime(400);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(200);
    expect(seen).toEqual([{ text: 'progress=12%', atMs: 0, partial: true }]);
  });

  it('never holds more than maxBytes, cutting at a blank and never inside a UTF-8 character', () => {
    const { framer, seen } = lines({ maxBytes: 1024 });
    let sent = 0;
    const word = 'słowo '; // 7 bytes
    for (let i = 0; i < 2000; i += 1) {
      framer.push(Buffer.from(word));
      sent += Buffer.byteLength(word);
    }
    framer.end();
    const total = seen.reduce((n, line) => n + Buffer.byteLength(line.text), 0);
    expect(total).toBe(sent);
    for (const line of seen) {
      expect(Buffer.byteLength(line.text)).toBeLessThanOrEqual(1024);
      expect(line.text).not.toContain('\uFFFD');
    }
    expect(seen.slice(0, -1).every((line) => line.partial && line.text.endsWith(' '))).toBe(true);
  });

  it('cuts a line with no blank at all at the size limit, on a character boundary', () => {
    const { framer, seen } = lines({ maxBytes: 100 });
    framer.push(Buffer.from('é'.repeat(120)));
    framer.end();
    expect(seen.map((line) => line.text).join('')).toBe('é'.repeat(120));
    for (const line of seen) expect(line.text).not.toContain('\uFFFD');
  });
});
