import { describe, expect, it } from 'vitest';
import { inTimeOrder } from '../../src/trace/time-order.js';
import type { TraceLine } from '../../src/trace/types.js';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const meta: TraceLine = { v: 1, type: 'meta', startedAt: at(0), label: 'x' };
const text = (name: string, ms: number): { line: TraceLine; name: string } => ({
  name,
  line: { t: at(ms), seq: 0, type: 'text', dir: 'out', text: name },
});

async function names(items: { line: TraceLine; name: string }[], window?: number): Promise<string[]> {
  async function* source() {
    yield* items;
  }
  const out: string[] = [];
  for await (const item of inTimeOrder(source(), window)) out.push(item.name);
  return out;
}

describe('trace lines in time order', () => {
  it('puts a line written late back where its time says, keeping equal times in file order', async () => {
    const lines = [text('a', 10), text('late', 5), text('b', 10), text('c', 20), text('d', 10)];
    expect(await names(lines)).toEqual(['late', 'a', 'b', 'd', 'c']);
  });

  it('keeps a line without a time after the line before it (the meta line first)', async () => {
    expect(await names([{ name: 'meta', line: meta }, text('a', 0), text('b', 3)])).toEqual([
      'meta',
      'a',
      'b',
    ]);
    const odd = { name: 'no-time', line: { ...text('x', 0).line, t: 'not a time' } };
    expect(await names([text('a', 5), odd, text('b', 1)])).toEqual(['b', 'a', 'no-time']);
  });

  it('holds at most the window: a line further out of place stays where it stands', async () => {
    const lines = [text('a', 10), text('b', 20), text('c', 30), text('early', 1)];
    expect(await names(lines, 2)).toEqual(['a', 'early', 'b', 'c']);
    expect(await names(lines, 3)).toEqual(['early', 'a', 'b', 'c']);
  });
});
