import { describe, expect, it } from 'vitest';
import { CaptureQueue } from '../../src/capture/capture-queue.js';

describe('CaptureQueue', () => {
  it('makes trace copies after the current turn, in the order chunks were read, stamped when read', async () => {
    let now = 100;
    const queue = new CaptureQueue(1024, () => now);
    const seen: string[] = [];
    const capture = (name: string) => ({
      push: (chunk: Buffer, atMs?: number) => seen.push(`${name}:${chunk.toString()}@${atMs}`),
    });
    const a = capture('a');
    const b = capture('b');
    queue.push(a, Buffer.from('1'));
    now = 105;
    queue.push(b, Buffer.from('2'));
    queue.push(a, Buffer.from('3'));
    // Nothing yet: the bytes have moved on, their copies wait for the event loop.
    expect(seen).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['a:1@100', 'b:2@105', 'a:3@105']);
  });

  it('copies at once past its byte limit, so memory stays bounded', () => {
    const queue = new CaptureQueue(10);
    const seen: number[] = [];
    const capture = { push: (chunk: Buffer) => seen.push(chunk.length) };
    queue.push(capture, Buffer.alloc(6));
    expect(seen).toEqual([]);
    queue.push(capture, Buffer.alloc(6));
    expect(seen).toEqual([6, 6]);
  });

  it('with inline limits copies small chunks at once, defers big ones, and keeps the read order', async () => {
    const queue = new CaptureQueue(1 << 20, () => 7, { chunkBytes: 4, burstBytes: 10 });
    const seen: string[] = [];
    const capture = { push: (chunk: Buffer, atMs?: number) => seen.push(`${chunk.toString()}@${atMs}`) };
    queue.push(capture, Buffer.from('ab'));
    expect(seen).toEqual(['ab@7']);
    // A big chunk waits for the turn, and so does a small one read after it: order first.
    queue.push(capture, Buffer.from('big chunk'));
    queue.push(capture, Buffer.from('cd'));
    expect(seen).toEqual(['ab@7']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['ab@7', 'big chunk@7', 'cd@7']);
    // A burst past its budget defers the rest of it; the budget comes back once the queue has run.
    for (const piece of ['1111', '2222', '3333']) queue.push(capture, Buffer.from(piece));
    expect(seen.slice(3)).toEqual(['1111@7', '2222@7']);
    await new Promise((resolve) => setImmediate(resolve));
    queue.push(capture, Buffer.from('44'));
    expect(seen.slice(3)).toEqual(['1111@7', '2222@7', '3333@7', '44@7']);
  });
});
