import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createOutput } from '../../src/cli/stream/output.js';

/** A pipe that takes one small chunk at a time, slowly: every write after the first waits for a drain. */
function slowPipe(): Writable & { received: string[] } {
  const received: string[] = [];
  const stream = new Writable({
    highWaterMark: 8,
    write(chunk: Buffer, _encoding, done) {
      received.push(chunk.toString());
      setImmediate(done);
    },
  });
  return Object.assign(stream, { received });
}

describe('streaming output into a slow reader', () => {
  it('waits for every drain without piling up listeners (no MaxListenersExceededWarning)', async () => {
    const stream = slowPipe();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const before = ['drain', 'close', 'error'].map((name) => stream.listenerCount(name));
    const out = createOutput(stream);
    try {
      for (let i = 0; i < 200; i++) expect(await out.write(`line ${i} of a long timeline\n`)).toBe(true);
    } finally {
      out.dispose();
      process.off('warning', onWarning);
    }
    expect(['drain', 'close', 'error'].map((name) => stream.listenerCount(name))).toEqual(before);
    expect(stream.received.join('')).toContain('line 199 of a long timeline');
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('stops waiting when the reader goes away mid-wait', async () => {
    const stream = slowPipe();
    const out = createOutput(stream);
    const pending = out.write('x'.repeat(64));
    const second = out.write('y'.repeat(64));
    stream.destroy();
    await pending;
    await second;
    expect(['drain', 'close'].map((name) => stream.listenerCount(name))).toEqual([0, 0]);
    out.dispose();
  });

  it('ends at once on a stream an earlier writer saw the reader leave (a second print after EPIPE)', async () => {
    const stream = new Writable({
      write(_chunk, _encoding, done) {
        done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const first = createOutput(stream);
    expect(await first.write('verdict\n')).toBe(false);
    first.dispose();
    expect(stream.destroyed).toBe(true);
    // A new writer on the same stream (print() makes one per result): no drain will ever come, so none is awaited.
    const second = createOutput(stream);
    expect(second.closed).toBe(true);
    expect(await second.write('summary\n')).toBe(false);
    second.dispose();
  });
});
