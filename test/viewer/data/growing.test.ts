import { describe, expect, it } from 'vitest';
import { GrowingBytes } from '../../../viewer/src/data/growing.js';

const bytes = (...values: number[]) => new Uint8Array(values);

async function all(reader: AsyncIterable<Uint8Array>): Promise<number[][]> {
  const out: number[][] = [];
  for await (const chunk of reader) out.push([...chunk]);
  return out;
}

describe('bytes of a download still coming in', () => {
  it('are read from the start while they arrive, pieces joined up to the size asked for', async () => {
    const growing = new GrowingBytes();
    growing.push(bytes(1, 2));
    const reading = all(growing.read(4));
    await Promise.resolve();
    growing.push(bytes(3));
    growing.push(bytes(4, 5));
    growing.push(bytes(6));
    setTimeout(() => growing.finish(), 5);
    const chunks = await reading;
    expect(chunks.flat()).toEqual([1, 2, 3, 4, 5, 6]);
    // No chunk is larger than asked for unless a single piece is.
    expect(chunks.every((c) => c.length <= 4)).toBe(true);
    expect(growing.size).toBe(6);
    expect(growing.done).toBe(true);
  });

  it('can be read again from the start, and joined whole for the raw view', async () => {
    const growing = new GrowingBytes();
    growing.push(bytes(1));
    growing.push(bytes(2, 3));
    growing.finish();
    expect((await all(growing.read())).flat()).toEqual([1, 2, 3]);
    expect((await all(growing.read(1))).map((c) => c.length)).toEqual([1, 2]);
    const joined = growing.bytes();
    expect([...joined]).toEqual([1, 2, 3]);
    expect(growing.bytes()).toBe(joined);
    growing.push(bytes(4));
    expect([...growing.bytes()]).toEqual([1, 2, 3, 4]);
  });

  it('hands a failed download’s error to its readers after what had arrived', async () => {
    const growing = new GrowingBytes();
    growing.push(bytes(7));
    const seen: number[] = [];
    const reading = (async () => {
      for await (const chunk of growing.read()) seen.push(...chunk);
    })();
    setTimeout(() => growing.fail(new Error('api/files/0 answered 500')), 5);
    await expect(reading).rejects.toThrow('api/files/0 answered 500');
    expect(seen).toEqual([7]);
  });
});
