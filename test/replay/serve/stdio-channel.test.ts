import { PassThrough, Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type SkippedLine, stdioChannel } from '../../../src/replay/serve/stdio-channel.js';
import type { Json } from '../../../src/trace/types.js';
import { settle } from '../helpers.js';

/** A channel over two PassThroughs, with everything it delivered, skipped and wrote. */
function harness(options: Parameters<typeof stdioChannel>[2] = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const received: Json[] = [];
  const skipped: SkippedLine[] = [];
  const written: string[] = [];
  output.on('data', (chunk: Buffer) => written.push(chunk.toString('utf8')));
  const channel = stdioChannel(input, output, { onSkipped: (line) => skipped.push(line), ...options });
  channel.onMessage((message) => received.push(message));
  return { input, output, channel, received, skipped, written };
}

describe('stdioChannel reading', () => {
  it('frames JSON lines on bytes across any chunking, with CRLF, a multi-byte character split in two', async () => {
    const { input, received } = harness();
    const bytes = Buffer.from(
      '{"jsonrpc":"2.0","id":1,"method":"a","params":{"s":"✓"}}\r\n\n  \n[{"x":1}]\n',
    );
    const cut = bytes.indexOf(Buffer.from('✓')) + 1;
    input.write(bytes.subarray(0, 5));
    input.write(bytes.subarray(5, cut));
    input.write(bytes.subarray(cut));
    await settle();
    expect(received).toEqual([{ jsonrpc: '2.0', id: 1, method: 'a', params: { s: '✓' } }, [{ x: 1 }]]);
  });

  it('skips and reports a line that is not JSON, and carries on', async () => {
    const { input, received, skipped } = harness();
    input.write('Server starting on stdio…\n{"jsonrpc":"2.0","method":"b"}\n');
    await settle();
    expect(skipped).toEqual([{ reason: 'not-json', text: 'Server starting on stdio…' }]);
    expect(received).toEqual([{ jsonrpc: '2.0', method: 'b' }]);
  });

  it('skips a line longer than maxLineBytes without holding it, and reads the next', async () => {
    const { input, received, skipped } = harness({ maxLineBytes: 64 });
    input.write(`{"big":"${'x'.repeat(200)}"}\n{"small":1}\n`);
    await settle();
    expect(skipped).toEqual([{ reason: 'oversize', size: 210, maxLineBytes: 64 }]);
    expect(received).toEqual([{ small: 1 }]);
  });

  it('resolves `ended` at EOF, delivering a last line that had no newline', async () => {
    const { input, channel, received } = harness();
    input.end('{"last":true}');
    await channel.ended;
    expect(received).toEqual([{ last: true }]);
  });

  it('resolves `ended` at once for an input read to its end before the channel began (a cassette piped in)', async () => {
    const input = Readable.from([Buffer.from('{"cassette":"line"}\n')]);
    for await (const _chunk of input);
    expect(input.readableEnded).toBe(true);
    const channel = stdioChannel(input, new PassThrough());
    const received: Json[] = [];
    channel.onMessage((message) => received.push(message));
    await channel.ended;
    expect(received).toEqual([]);
  });

  it('survives a handler that throws', async () => {
    const errors: unknown[] = [];
    const { input, channel, received } = harness({ onError: (e) => errors.push(e) });
    channel.onMessage(() => {
      throw new Error('boom');
    });
    input.write('{"a":1}\n{"a":2}\n');
    await settle();
    expect(received).toEqual([{ a: 1 }, { a: 2 }]);
    expect(errors).toHaveLength(2);
  });

  it('stops reading on close()', async () => {
    const { input, channel, received } = harness();
    channel.close();
    input.write('{"a":1}\n');
    await settle();
    expect(received).toEqual([]);
  });
});

describe('stdioChannel writing', () => {
  it('writes each message as one JSON line, in order', async () => {
    const { channel, written } = harness();
    channel.send({ jsonrpc: '2.0', id: 1, result: { text: 'line\nbreak' } });
    channel.send({ jsonrpc: '2.0', method: 'notifications/message' });
    await channel.flush();
    await settle();
    expect(written.join('')).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{"text":"line\\nbreak"}}\n{"jsonrpc":"2.0","method":"notifications/message"}\n',
    );
  });

  it('leaves a gap after progress, so a client reads it apart from the response that follows', async () => {
    const { channel, output } = harness({ progressGapMs: 30 });
    const at: number[] = [];
    output.on('data', () => at.push(Date.now()));
    channel.send({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 1, progress: 1 },
    });
    channel.send({ jsonrpc: '2.0', id: 1, result: {} });
    await channel.flush();
    await settle();
    expect(at).toHaveLength(2);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(25);
  });

  it('stops reading while the client does not read, and catches up once it does', async () => {
    const input = new PassThrough();
    const chunks: Buffer[] = [];
    let release: (() => void) | undefined;
    // A client that reads nothing until released.
    const output = new Writable({
      highWaterMark: 64,
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        if (release === undefined) release = done;
        else done();
      },
    });
    const channel = stdioChannel(input, output);
    let answered = 0;
    channel.onMessage((message) => {
      answered++;
      channel.send({ jsonrpc: '2.0', id: (message as { id: number }).id, result: { pad: 'x'.repeat(100) } });
    });
    for (let id = 0; id < 50; id++) input.write(`{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`);
    await settle(20);
    expect(input.isPaused()).toBe(true);
    const whileBlocked = answered;
    expect(whileBlocked).toBeLessThan(50);
    release!();
    await settle(50);
    expect(answered).toBe(50);
    await channel.flush();
    expect(chunks.map((c) => JSON.parse(c.toString()).id)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('drops what it cannot write once the client has gone, and flush() still resolves', async () => {
    const { channel, output } = harness();
    output.destroy();
    await settle();
    channel.send({ jsonrpc: '2.0', id: 1, result: {} });
    await expect(channel.flush()).resolves.toBeUndefined();
  });
});
