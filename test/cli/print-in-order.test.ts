import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { printInOrder } from '../../src/cli/io.js';
import { memoryIo } from '../helpers/cli.js';

/** A stdout that takes one small chunk at a time, each a little later: every print waits for a drain. */
function slowStdout(): Writable & { text: string } {
  const stream = Object.assign(
    new Writable({
      highWaterMark: 4,
      write(chunk: Buffer, _encoding, done) {
        stream.text += chunk.toString();
        setTimeout(done, 1);
      },
    }),
    { text: '' },
  );
  return stream;
}

describe('printInOrder: results handed over by a callback that cannot wait', () => {
  it('prints them in the order given, each after the one before has drained', async () => {
    const stdout = slowStdout();
    const live = printInOrder({ ...memoryIo(), stdout });
    for (let i = 0; i < 20; i++) live.print(`verdict ${i}\n`);
    live.print('');
    expect(await live.done()).toBe(true);
    expect(stdout.text).toBe(Array.from({ length: 20 }, (_, i) => `verdict ${i}\n`).join(''));
  });

  it('stops at a reader that went away: done() says so, nothing is thrown', async () => {
    let writes = 0;
    const stdout = new Writable({
      write(_chunk, _encoding, done) {
        writes += 1;
        done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const live = printInOrder({ ...memoryIo(), stdout });
    live.print('one\n');
    live.print('two\n');
    expect(await live.done()).toBe(false);
    expect(writes).toBe(1);
  });

  it('keeps a write failure for done() to throw, naming the stream', async () => {
    const stdout = new Writable({
      write(_chunk, _encoding, done) {
        done(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
      },
    });
    const live = printInOrder({ ...memoryIo(), stdout });
    live.print('one\n');
    live.print('two\n');
    await expect(live.done()).rejects.toThrow('cannot write to stdout: no space left on device');
  });
});
