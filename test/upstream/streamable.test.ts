/**
 * The raw Streamable HTTP client against a server the test scripts (a fetch): what it sends, in which order and
 * with which headers; what it hands back and on which stream; how it resumes, refuses and ends.
 */
import { describe, expect, it } from 'vitest';
import { StreamableUpstream } from '../../src/upstream/streamable.js';
import type { UpstreamEvent, UpstreamMessage, UpstreamOptions } from '../../src/upstream/types.js';
import { eventStream, fakeServer, result, type Seen } from './server.js';

const URL_ = 'http://127.0.0.1:3001/mcp';
const INIT = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } };
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

/** A client on `fetch` that keeps every message and event it reports. */
function client(fetch: typeof globalThis.fetch, options: Partial<UpstreamOptions> = {}) {
  const messages: UpstreamMessage[] = [];
  const events: UpstreamEvent[] = [];
  const upstream = new StreamableUpstream({
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

/** Answers initialize with a session and a version; 202 to notifications; 405 to GET; 200 to DELETE. */
function handshake(request: Seen): Response | undefined {
  if (request.method === 'GET') return new Response(null, { status: 405 });
  if (request.method === 'DELETE') return new Response(null, { status: 200 });
  const body = JSON.parse(request.body) as { id?: number; method?: string };
  if (Array.isArray(body)) return undefined;
  if (body.method === 'initialize')
    return Response.json(result(body.id ?? 0, { protocolVersion: '2025-06-18' }), {
      headers: { 'mcp-session-id': 'session-1' },
    });
  if (body.id === undefined) return new Response(null, { status: 202 });
  return undefined;
}

describe('the Streamable HTTP client', () => {
  it('keeps the session and version the initialize answer names, and sends both on every later request', async () => {
    const server = fakeServer((request) => handshake(request) ?? Response.json(result(1, { tools: [] })));
    const sent: { conn: string | undefined; stream: string }[] = [];
    const c = client(server.fetch, { onSent: (m) => sent.push({ conn: m.conn, stream: m.stream }) });
    await c.upstream.send(INIT);
    await c.upstream.send(INITIALIZED);
    await c.upstream.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    await c.upstream.close();
    expect(
      server.seen.map((r) => [r.method, r.headers['mcp-session-id'], r.headers['mcp-protocol-version']]),
    ).toEqual([
      ['POST', undefined, undefined],
      ['POST', 'session-1', '2025-06-18'],
      // The standalone stream, asked for once the client said initialized (405: the server has none).
      ['GET', 'session-1', '2025-06-18'],
      ['POST', 'session-1', '2025-06-18'],
      ['DELETE', 'session-1', '2025-06-18'],
    ]);
    // The initialize request is reported once its answer named the session it belongs to.
    expect(sent).toEqual([
      { conn: 'session-1', stream: 'post-1' },
      { conn: 'session-1', stream: 'post-2' },
      { conn: 'session-1', stream: 'post-3' },
    ]);
    expect(c.events.map((e) => e.kind)).toEqual(['no-standalone-stream', 'closed']);
    expect(c.upstream.sessionId).toBe('session-1');
    expect(await c.upstream.closed).toBe('closed by the client');
    expect(c.messages.map((m) => [m.stream, m.conn])).toEqual([
      ['post-1', 'session-1'],
      ['post-3', 'session-1'],
    ]);
  });

  it('hands back an event-stream answer event by event, with its stream and event ids, priming events skipped', async () => {
    const stream = eventStream();
    const server = fakeServer((request) => handshake(request) ?? stream.response);
    const { upstream, messages, events } = client(server.fetch);
    await upstream.send(INIT);
    const answered = upstream.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } });
    stream.write('id: prime\ndata: \n\n');
    stream.event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } }, 'e1');
    stream.write('event: ping\ndata: {"not":"a message"}\n\n');
    stream.write('data: not json\n\n');
    stream.event(result(1, { content: [] }), 'e2');
    stream.end();
    expect(await answered).toEqual({ status: 200, stream: 'post-2', unanswered: [] });
    expect(messages.slice(1).map((m) => [m.stream, m.eventId, m.conn, m.text])).toEqual([
      [
        'post-2',
        'e1',
        'session-1',
        '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}',
      ],
      ['post-2', 'e2', 'session-1', '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'],
    ]);
    expect(events).toEqual([
      { kind: 'upstream-error', stream: 'post-2', message: 'a non-JSON event on post-2: not json' },
    ]);
  });

  it('resumes a dropped answer stream with Last-Event-ID after the retry the server asked for', async () => {
    const first = eventStream();
    const resumed = eventStream();
    const server = fakeServer((request) => {
      if (request.method === 'GET' && request.headers['last-event-id'] !== undefined) return resumed.response;
      return handshake(request) ?? first.response;
    });
    const { upstream, messages, events } = client(server.fetch);
    await upstream.send(INIT);
    const answered = upstream.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } });
    first.write('retry: 5\n');
    first.event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } }, 'e1');
    first.end();
    await new Promise((resolve) => setTimeout(resolve, 0));
    resumed.event(result(1, { content: [] }), 'e2');
    resumed.end();
    expect(await answered).toMatchObject({ unanswered: [] });
    expect(server.seen.at(-1)).toMatchObject({
      method: 'GET',
      headers: { 'last-event-id': 'e1', 'mcp-session-id': 'session-1' },
    });
    expect(events).toEqual([
      { kind: 'reconnect', stream: 'post-2', lastEventId: 'e1', delayMs: 5, attempt: 1 },
    ]);
    expect(messages.at(-1)).toMatchObject({
      stream: 'post-2',
      eventId: 'e2',
      raw: result(1, { content: [] }),
    });
  });

  it('names the requests whose answer stream ended without their response and could not be resumed', async () => {
    const stream = eventStream();
    const server = fakeServer((request) => handshake(request) ?? stream.response);
    const { upstream, events } = client(server.fetch);
    await upstream.send(INIT);
    const answered = upstream.send([
      { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
      { jsonrpc: '2.0', id: 'b', method: 'prompts/list' },
    ]);
    stream.write(`data: ${JSON.stringify(result('a', { tools: [] }))}\n\n`);
    stream.end();
    expect(await answered).toEqual({ status: 200, stream: 'post-2', unanswered: ['b'] });
    expect(events).toEqual([{ kind: 'stream-lost', stream: 'post-2', message: 'ended before its response' }]);
  });

  it('delivers a JSON-RPC error a 4xx carries as an answer, and raises an HTTP error that carries none', async () => {
    const refusal = {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Bad Request: Server not initialized' },
    };
    const server = fakeServer((_request, index) =>
      index === 0
        ? Response.json(refusal, { status: 400 })
        : new Response('upstream exploded', { status: 500, statusText: 'Internal Server Error' }),
    );
    const { upstream, messages } = client(server.fetch);
    expect(await upstream.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toMatchObject({
      status: 400,
      unanswered: [1],
    });
    expect(messages.map((m) => m.raw)).toEqual([refusal]);
    await expect(upstream.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).rejects.toMatchObject({
      kind: 'http',
      status: 500,
      message: `the upstream ${URL_} answered 500 Internal Server Error: upstream exploded`,
    });
  });

  it('refuses an answer that is neither JSON nor an event stream, saying what was expected', async () => {
    const server = fakeServer(
      () => new Response('<html>hello</html>', { headers: { 'content-type': 'text/html' } }),
    );
    const { upstream } = client(server.fetch);
    await expect(upstream.send({ jsonrpc: '2.0', id: 1, method: 'ping' })).rejects.toMatchObject({
      kind: 'protocol',
      message: `the upstream ${URL_} answered 200 with text/html that is not JSON; expected application/json or text/event-stream`,
    });
  });

  it('holds later messages until the initialize answer named the session, so none goes without it', async () => {
    let answerInit!: (response: Response) => void;
    const server = fakeServer((request) => {
      const body = request.body === '' ? {} : (JSON.parse(request.body) as { method?: string });
      if (body.method === 'initialize')
        return new Promise<Response>((resolve) => {
          answerInit = resolve;
        });
      return handshake(request) ?? Response.json(result(1));
    });
    const { upstream } = client(server.fetch, { timeouts: { orderMs: 1 } });
    const init = upstream.send(INIT);
    const after = upstream.send(INITIALIZED);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.seen.map((r) => r.method)).toEqual(['POST']);
    answerInit(
      Response.json(result(0, { protocolVersion: '2025-06-18' }), { headers: { 'mcp-session-id': 's-9' } }),
    );
    await Promise.all([init, after]);
    expect(server.seen[1]).toMatchObject({ method: 'POST', headers: { 'mcp-session-id': 's-9' } });
    await upstream.close();
  });

  it('ends on close: the DELETE, every stream dropped, and nothing sent after', async () => {
    const standalone = eventStream();
    const server = fakeServer((request) =>
      request.method === 'GET' ? standalone.response : handshake(request)!,
    );
    const { upstream, events } = client(server.fetch);
    await upstream.send(INIT);
    await upstream.send(INITIALIZED);
    standalone.event({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await upstream.close();
    await upstream.close();
    expect(server.seen.filter((r) => r.method === 'DELETE')).toHaveLength(1);
    expect(standalone.cancelled()).toBe(true);
    expect(events.at(-1)).toEqual({ kind: 'closed', reason: 'closed by the client' });
    await expect(upstream.send({ jsonrpc: '2.0', id: 9, method: 'ping' })).rejects.toMatchObject({
      kind: 'closed',
      message: `the session with ${URL_} is closed`,
    });
  });
});
