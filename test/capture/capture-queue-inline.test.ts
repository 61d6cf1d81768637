import { describe, expect, it } from 'vitest';
import { CAPTURE_QUEUE_DEFAULTS, CaptureQueue } from '../../src/capture/capture-queue.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

function recorder() {
  const seen: string[] = [];
  const capture = (name: string) => ({
    push: (chunk: Buffer, atMs?: number) => seen.push(`${name}:${chunk.length}@${atMs}`),
  });
  return { seen, capture };
}

describe('CaptureQueue with inline capture (as the stdio proxy makes it)', () => {
  it('copies a small chunk at once when nothing waits, and defers a big one to after the turn', async () => {
    const now = 100;
    const queue = new CaptureQueue(1 << 20, () => now, { inlineBytes: 16, inlineBytesPerMs: 1024 });
    const { seen, capture } = recorder();
    queue.push(capture('a'), Buffer.alloc(10));
    expect(seen).toEqual(['a:10@100']);
    queue.push(capture('b'), Buffer.alloc(17));
    expect(seen).toEqual(['a:10@100']);
    await turn();
    expect(seen).toEqual(['a:10@100', 'b:17@100']);
  });

  it('keeps the order of reads: a small chunk behind a waiting one waits too', async () => {
    let now = 100;
    const queue = new CaptureQueue(1 << 20, () => now, { inlineBytes: 16, inlineBytesPerMs: 1024 });
    const { seen, capture } = recorder();
    queue.push(capture('big'), Buffer.alloc(100));
    now = 101;
    queue.push(capture('small'), Buffer.alloc(1));
    queue.push(capture('small'), Buffer.alloc(2));
    expect(seen).toEqual([]);
    await turn();
    expect(seen).toEqual(['big:100@100', 'small:1@101', 'small:2@101']);
    // Once the queue is empty again, small chunks go at once.
    queue.push(capture('after'), Buffer.alloc(3));
    expect(seen.at(-1)).toBe('after:3@101');
  });

  it('defers a burst past its bytes per millisecond, and starts afresh the next millisecond', async () => {
    let now = 5;
    const queue = new CaptureQueue(1 << 20, () => now, { inlineBytes: 16, inlineBytesPerMs: 30 });
    const { seen, capture } = recorder();
    for (let i = 0; i < 4; i += 1) queue.push(capture('c'), Buffer.alloc(10));
    // Three fit in the budget of 30 bytes; the fourth waits for the turn.
    expect(seen).toEqual(['c:10@5', 'c:10@5', 'c:10@5']);
    await turn();
    expect(seen).toHaveLength(4);
    now = 6;
    queue.push(capture('d'), Buffer.alloc(10));
    expect(seen.at(-1)).toBe('d:10@6');
  });

  it('copies nothing at once by default', () => {
    const queue = new CaptureQueue();
    const { seen, capture } = recorder();
    queue.push(capture('a'), Buffer.alloc(1));
    expect(seen).toEqual([]);
    queue.flush();
    expect(seen).toHaveLength(1);
    expect(CAPTURE_QUEUE_DEFAULTS.inlineBytes).toBeGreaterThan(0);
  });
});
