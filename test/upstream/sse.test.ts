import { describe, expect, it } from 'vitest';
import { readSse, type SseEvent } from '../../src/upstream/sse.js';
import { eventStream } from './server.js';

/** Every event of a body made of `chunks`, and the retry delays it asked for. */
async function read(chunks: (string | Uint8Array)[]): Promise<{ events: SseEvent[]; retries: number[] }> {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks)
        controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
  const events: SseEvent[] = [];
  const retries: number[] = [];
  for await (const event of readSse(body, { onRetry: (ms) => retries.push(ms) })) events.push(event);
  return { events, retries };
}

describe('readSse', () => {
  it('reads events whatever the chunks: split fields, split UTF-8, CRLF, multi-line data, comments', async () => {
    const bytes = new TextEncoder().encode('id: 7\r\nevent: message\r\ndata: {"text":"héllo ✓"}\r\n\r\n');
    const cut = bytes.indexOf(0xc3) + 1; // inside the two bytes of é
    const { events } = await read([
      ': a comment the server sends to keep the line open\n\n',
      bytes.subarray(0, cut),
      bytes.subarray(cut),
      'data: first line\nda',
      'ta: second line\n\n',
    ]);
    expect(events.map((e) => [e.id, e.event, e.data])).toEqual([
      ['7', 'message', '{"text":"héllo ✓"}'],
      [undefined, undefined, 'first line\nsecond line'],
    ]);
  });

  it('reports retry: and drops a last event that never got its blank line', async () => {
    const { events, retries } = await read(['retry: 250\nid: p\ndata: \n\n', 'data: cut off']);
    expect(retries).toEqual([250]);
    expect(events.map((e) => [e.id, e.data])).toEqual([['p', '']]);
  });

  it('hands each event out as soon as it is complete, while the stream is still open', async () => {
    const stream = eventStream();
    const body = stream.response.body as ReadableStream<Uint8Array>;
    const events = readSse(body);
    stream.event({ n: 1 }, 'a');
    expect((await events.next()).value).toMatchObject({ id: 'a', data: '{"n":1}' });
    stream.event({ n: 2 }, 'b');
    expect((await events.next()).value).toMatchObject({ id: 'b', data: '{"n":2}' });
    // Leaving early releases the connection.
    await events.return(undefined);
    expect(stream.cancelled()).toBe(true);
  });
});
