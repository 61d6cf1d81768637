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
});
