/**
 * Event streams that go wrong, through the recording proxy: a client that reads slowly (the upstream must be held
 * back, not buffered), an upstream that dies mid-stream, a client that goes away mid-stream.
 */
import { type IncomingMessage, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  eventsOf,
  messagesOf,
  type RecordingProxy,
  startRecording,
  startUpstream,
  until,
} from '../../helpers/http-proxy.js';

const SSE_HEAD = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

/** Opens a GET event stream through the proxy and hands back the response, unread. */
function openStream(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream' } }, resolve);
    req.on('error', reject);
    req.end();
  });
}

/**
 * Resolves once `value()` has stayed the same for five polls in a row (it no longer moves): a wait for something
 * to stop, however long a loaded machine takes to get there.
 */
async function untilSteady(value: () => number): Promise<void> {
  let last = value();
  let same = 0;
  while (same < 5) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = value();
    same = now === last ? same + 1 : 0;
    last = now;
  }
}

describe('event streams through the recording proxy', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>> | undefined;
  let recording: RecordingProxy | undefined;

  afterEach(async () => {
    await recording?.stop();
    await upstream?.close();
    recording = undefined;
    upstream = undefined;
  });

  it('holds a fast upstream back while the client reads slowly, and loses nothing', async () => {
    const eventBytes = 64 * 1024;
    const count = 512; // 32 MiB in all: far more than the socket buffers on the way can hold.
    const payload = 'x'.repeat(eventBytes - 64);
    let written = 0;
    let blocked = false;
    upstream = await startUpstream((_req, res) => {
      res.writeHead(200, SSE_HEAD);
      let i = 0;
      const pump = () => {
        while (i < count) {
          const event = `id: ${i}\ndata: {"jsonrpc":"2.0","method":"n","params":{"i":${i},"p":"${payload}"}}\n\n`;
          i += 1;
          written += event.length;
          if (!res.write(event)) {
            blocked = true;
            res.once('drain', () => {
              blocked = false;
              pump();
            });
            return;
          }
        }
        res.end();
      };
      pump();
    });
    // Trace copies above 1 KB become `truncated` events, so the test holds no 32 MiB trace in memory.
    recording = await startRecording(`${upstream.origin}/mcp`, { maxMessageBytes: 1024 });
    const res = await openStream(recording.proxy.url);
    res.pause();
    await until(() => blocked, 'the upstream to be held back');
    // Nobody reads: once the socket buffers on the way are full, the upstream stays held back and writes no
    // more. How much those buffers take is the kernel's to choose (Linux grows them up to tens of MB), so the
    // test waits for the writes to stop rather than for a fixed time, and asks only that the stream did not
    // get through: a proxy that buffered instead of pausing the upstream would read it all.
    await untilSteady(() => written);
    expect(blocked).toBe(true);
    expect(written).toBeLessThan(count * eventBytes);
    let received = 0;
    res.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    res.resume();
    await new Promise((resolve) => res.on('end', resolve));
    expect(received).toBe(written);
    // Trace copies are made after the bytes have moved on: the trace is whole once the recording has stopped.
    await recording.stop();
    expect(eventsOf(recording.sink.lines, 'truncated')).toHaveLength(count);
    expect(messagesOf(recording.sink.lines)).toEqual([]);
  });

  it('cuts the client off when the upstream dies mid-stream, records it, and stays up', async () => {
    upstream = await startUpstream((req, res) => {
      res.writeHead(200, SSE_HEAD);
      if (req.url === '/mcp') {
        res.write('id: 1\ndata: {"jsonrpc":"2.0","method":"first"}\n\n', () => res.socket!.destroy());
      } else {
        res.end('data: {"jsonrpc":"2.0","method":"later"}\n\n');
      }
    });
    recording = await startRecording(`${upstream.origin}/mcp`);
    const res = await openStream(recording.proxy.url);
    let text = '';
    res.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
    });
    const ending = await new Promise<string>((resolve) => {
      res.on('end', () => resolve('end'));
      res.on('error', () => resolve('error'));
      res.on('close', () => resolve(res.complete ? 'end' : 'error'));
    });
    expect(text).toContain('"method":"first"');
    expect(ending).toBe('error');
    const lines = recording.sink.lines;
    expect(eventsOf(lines, 'upstream_error')[0]).toMatchObject({ phase: 'response', stream: 'h1' });
    expect(messagesOf(lines).map((m) => m.eventId)).toEqual(['1']);
    const after = await openStream(recording.proxy.url.replace(/\/mcp$/, '/later'));
    after.setEncoding('utf8');
    let later = '';
    for await (const chunk of after) later += chunk;
    expect(later).toContain('"method":"later"');
  });

  it('passes an event stream it does not record straight through, even one that then goes quiet', async () => {
    upstream = await startUpstream((_req, res) => {
      res.writeHead(200, SSE_HEAD);
      res.write('event: tick\ndata: 1\n\n');
    });
    recording = await startRecording(`${upstream.origin}/mcp`);
    const other = recording.proxy.url.replace(/\/mcp$/, '/feed');
    const res = await new Promise<IncomingMessage>((resolve) => request(other, resolve).end());
    let text = '';
    res.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
    });
    await until(() => text === 'event: tick\ndata: 1\n\n', 'the first event while the stream stays open');
    expect(messagesOf(recording.sink.lines)).toEqual([]);
    res.destroy();
  });

  it('aborts the upstream request when the client goes away mid-stream', async () => {
    let upstreamClosed = false;
    upstream = await startUpstream((_req, res) => {
      res.writeHead(200, SSE_HEAD);
      res.write('data: {"jsonrpc":"2.0","method":"hello"}\n\n');
      res.on('close', () => {
        upstreamClosed = !res.writableEnded;
      });
    });
    recording = await startRecording(`${upstream.origin}/mcp`);
    const res = await openStream(recording.proxy.url);
    await new Promise((resolve) => res.once('data', resolve));
    res.destroy();
    await until(() => upstreamClosed, 'the upstream to see its request aborted');
    const disconnects = eventsOf(recording.sink.lines, 'client_disconnect');
    expect(disconnects).toHaveLength(1);
    expect(disconnects[0]).toMatchObject({ phase: 'response', stream: 'h1' });
    expect(recording.proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });
});
