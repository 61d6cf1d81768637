/**
 * The raw legacy HTTP+SSE client against a server the test scripts (a fetch): the endpoint event, POSTs to it,
 * answers on the one stream, and the session ending with that stream.
 */
import { describe, expect, it } from 'vitest';
import { LegacySseUpstream } from '../../src/upstream/legacy.js';
import type { UpstreamEvent, UpstreamMessage, UpstreamOptions } from '../../src/upstream/types.js';
import { eventStream, fakeServer, result } from './server.js';

const URL_ = 'http://127.0.0.1:3001/sse';

function client(fetch: typeof globalThis.fetch, options: Partial<UpstreamOptions> = {}) {
  const messages: UpstreamMessage[] = [];
  const events: UpstreamEvent[] = [];
  const upstream = new LegacySseUpstream({
    url: URL_,
    fetch,
    onMessage: (message) => {
      messages.push(message);
    },
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { upstream, messages, events };
}

describe('the legacy HTTP+SSE client', () => {
  it('POSTs to the endpoint the stream names and reads every answer from the stream', async () => {
    const stream = eventStream();
    const server = fakeServer((request) =>
      request.method === 'GET' ? stream.response : new Response('Accepted', { status: 202 }),
    );
    const { upstream, messages, events } = client(server.fetch);
    stream.write('event: endpoint\ndata: /message?sessionId=abc\n\n');
    await upstream.start();
    expect(upstream.sessionId).toBe('abc');
    expect(events).toEqual([
      { kind: 'connect', url: 'http://127.0.0.1:3001/message?sessionId=abc', conn: 'abc' },
    ]);
    expect(await upstream.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual({
      status: 202,
      stream: 'post-1',
      unanswered: [],
    });
    stream.write(`event: message\ndata: ${JSON.stringify(result(1, { tools: [] }))}\n\n`);
    stream.event(result(2), 'e-2');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(server.seen[1]).toMatchObject({
      method: 'POST',
      url: 'http://127.0.0.1:3001/message?sessionId=abc',
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(messages.map((m) => [m.stream, m.conn, m.eventId, m.raw])).toEqual([
      ['sse', 'abc', undefined, result(1, { tools: [] })],
      ['sse', 'abc', 'e-2', result(2)],
    ]);
    await upstream.close();
    expect(await upstream.closed).toBe('closed by the client');
  });

  it('ends the session when the stream ends, saying so, and refuses to send after', async () => {
    const stream = eventStream();
    const server = fakeServer(() => stream.response);
    const { upstream, events } = client(server.fetch);
    stream.write('event: endpoint\ndata: http://127.0.0.1:3001/messages/?session_id=x\n\n');
    await upstream.start();
    stream.end();
    expect(await upstream.closed).toBe('the upstream closed the SSE stream');
    expect(events.slice(1)).toEqual([
      { kind: 'stream-lost', stream: 'sse', message: 'the upstream closed the SSE stream' },
      { kind: 'closed', reason: 'the upstream closed the SSE stream' },
    ]);
    await expect(upstream.send({ jsonrpc: '2.0', id: 1, method: 'ping' })).rejects.toMatchObject({
      kind: 'closed',
      message: `the SSE session with ${URL_} is over`,
    });
  });

  it('says what it expected when the URL is no legacy SSE endpoint, or names no endpoint in time', async () => {
    const json = fakeServer(() =>
      Response.json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'x' } }),
    );
    await expect(client(json.fetch).upstream.start()).rejects.toMatchObject({
      kind: 'protocol',
      message: `the upstream ${URL_} answered the SSE GET with application/json; expected text/event-stream (is it a Streamable HTTP endpoint? drop --sse)`,
    });
    const quiet = eventStream();
    const slow = fakeServer(() => quiet.response);
    await expect(client(slow.fetch, { timeouts: { endpointMs: 20 } }).upstream.start()).rejects.toMatchObject(
      {
        kind: 'timeout',
        message: `the upstream ${URL_} sent no endpoint event within 20 ms (is it a legacy SSE endpoint?)`,
      },
    );
    const ended = eventStream();
    const early = fakeServer(() => ended.response);
    ended.event({ jsonrpc: '2.0', method: 'notifications/message' });
    ended.end();
    await expect(client(early.fetch).upstream.start()).rejects.toMatchObject({
      kind: 'protocol',
      message: `the upstream ${URL_} closed the SSE stream before its endpoint`,
    });
    await expect(
      client(early.fetch).upstream.send({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    ).rejects.toMatchObject({
      kind: 'closed',
      message: `the SSE session with ${URL_} is not started`,
    });
  });

  it('delivers a JSON-RPC answer a POST carries itself, and raises an HTTP error that carries none', async () => {
    const stream = eventStream();
    let posts = 0;
    const server = fakeServer((request) => {
      if (request.method === 'GET') return stream.response;
      posts += 1;
      return posts === 1
        ? Response.json({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad' } }, { status: 400 })
        : new Response('Session not found', { status: 404, statusText: 'Not Found' });
    });
    const { upstream, messages } = client(server.fetch);
    stream.write('event: endpoint\ndata: /message?sessionId=abc\n\n');
    await upstream.start();
    expect(await upstream.send({ jsonrpc: '2.0', id: 1, method: 'tools/call' })).toMatchObject({
      status: 400,
    });
    expect(messages.map((m) => [m.stream, m.raw])).toEqual([
      ['post-1', { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad' } }],
    ]);
    await expect(upstream.send({ jsonrpc: '2.0', id: 2, method: 'ping' })).rejects.toMatchObject({
      kind: 'http',
      status: 404,
      message:
        'the upstream http://127.0.0.1:3001/message?sessionId=abc answered 404 Not Found: Session not found',
    });
    await upstream.close();
  });
});
