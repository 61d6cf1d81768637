import { describe, expect, it } from 'vitest';
import { DeferredSink } from '../../src/sink/deferred.js';
import { MemorySink } from '../../src/sink/memory.js';
import { newMeta } from '../../src/trace/meta.js';

const meta = () => newMeta({ label: 'deferred', transport: 'stdio' });
const event = (name: string) => ({ t: '2026-01-01T00:00:00.001Z', type: 'event' as const, name });
const stderr = (text: string) => ({ t: '2026-01-01T00:00:00.002Z', type: 'stderr' as const, text });
const message = {
  t: '2026-01-01T00:00:00.003Z',
  dir: 'in' as const,
  raw: { jsonrpc: '2.0', id: 1, method: 'ping' },
};

describe('DeferredSink', () => {
  it('writes nothing at all for a session in which no message crossed', async () => {
    const inner = new MemorySink();
    const sink = new DeferredSink(inner);
    sink.start(meta());
    sink.append(event('spawn_error'));
    sink.append(stderr('cannot start'));
    await sink.close({ reason: 'process_exit', exitCode: 127 });
    expect(sink.started).toBe(false);
    expect(inner.lines).toEqual([]);
  });

  it('starts at the first message, with the lines held before it in order and their own times', async () => {
    const inner = new MemorySink();
    const sink = new DeferredSink(inner);
    sink.start(meta());
    sink.append(stderr('listening'));
    sink.append(message, JSON.stringify(message.raw));
    sink.append(event('later'));
    await sink.close({ reason: 'process_exit', exitCode: 0 });
    expect(sink.started).toBe(true);
    expect(inner.lines.map((line) => line.type ?? 'message')).toEqual([
      'meta',
      'stderr',
      'message',
      'event',
      'end',
    ]);
    expect(inner.lines.slice(1, 4).map((line) => [line.t, (line as { seq: number }).seq])).toEqual([
      ['2026-01-01T00:00:00.002Z', 1],
      ['2026-01-01T00:00:00.003Z', 2],
      ['2026-01-01T00:00:00.001Z', 3],
    ]);
  });

  it('starts anyway once the held lines outgrow its limits', () => {
    const inner = new MemorySink();
    const sink = new DeferredSink(inner, { lines: 3, chars: 1000 });
    sink.start(meta());
    for (let i = 0; i < 3; i++) sink.append(stderr(`line ${i}`));
    expect(sink.started).toBe(false);
    sink.append(stderr('one more'));
    expect(sink.started).toBe(true);
    expect(inner.lines).toHaveLength(5);
    const byChars = new DeferredSink(new MemorySink(), { lines: 100, chars: 10 });
    byChars.start(meta());
    byChars.append(stderr('x'.repeat(11)));
    expect(byChars.started).toBe(true);
  });
});
