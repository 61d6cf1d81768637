/**
 * The pieces of the HTTP recording proxy on their own: the exchange recorder (what a bridge reuses), URL hiding,
 * the Host/Origin guard, header handling, the legacy endpoint rewrite and the --listen parser.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseListen } from '../../../src/cli/record/http-flags.js';
import { EndpointHold, rewriteEndpoint } from '../../../src/proxy/http/endpoint.js';
import { allowedHosts, checkLocalRequest } from '../../../src/proxy/http/guard.js';
import { forwardableHeaders, traceHeaders } from '../../../src/proxy/http/headers.js';
import { RecordQueue } from '../../../src/proxy/http/later.js';
import { HttpRecorder } from '../../../src/proxy/http/recorder.js';
import { shownUrl, upstreamPath } from '../../../src/proxy/http/url.js';
import { MemorySink } from '../../../src/sink/memory.js';
import { newMeta } from '../../../src/trace/meta.js';
import { eventsOf, messagesOf } from '../../helpers/http-proxy.js';

function recorder(maxMessageBytes = 1 << 20) {
  const sink = new MemorySink();
  sink.start(newMeta({ label: 'unit', transport: 'http' }));
  return { sink, recorder: new HttpRecorder({ sink, maxMessageBytes }) };
}

const until = (predicate: () => boolean) =>
  new Promise<void>((resolve) => {
    const poll = () => (predicate() ? resolve() : setTimeout(poll, 5));
    poll();
  });

describe('HttpRecorder', () => {
  it('turns an SSE answer into message lines: priming skipped, event ids kept, the session noted', () => {
    const { sink, recorder: r } = recorder();
    const x = r.exchange({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json' } });
    x.requestChunk(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"initialize"}'));
    expect(x.requestEnd()).toMatchObject({ id: 1 });
    x.response(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's-1' });
    x.responseChunk(Buffer.from('id: p\ndata: \n\nid: e1\ndata: {"jsonrpc":"2.0",'));
    x.responseChunk(Buffer.from('"id":1,"result":{}}\n\ndata: not json\n\n'));
    x.responseEnd();
    x.close();
    const messages = messagesOf(sink.lines);
    expect(messages.map((m) => [m.dir, m.conn, m.stream, m.eventId])).toEqual([
      ['in', 'h1', 'h1', undefined],
      ['out', 'h1', 'h1', 'e1'],
    ]);
    expect(eventsOf(sink.lines, 'session')[0]).toMatchObject({ conn: 'h1', sessionId: 's-1' });
    expect(eventsOf(sink.lines, 'non_json_body')[0]).toMatchObject({ dir: 'out', head: 'not json' });
  });

  it('keeps no copy of an event over maxMessageBytes, whether it arrives in pieces or whole in one chunk', () => {
    const { sink, recorder: r } = recorder(1024);
    const x = r.exchange({ method: 'GET', url: '/mcp', headers: { accept: 'text/event-stream' } });
    x.response(200, { 'content-type': 'text/event-stream' });
    const event = (i: number) =>
      `id: ${i}\ndata: {"jsonrpc":"2.0","method":"n","params":{"p":"${'x'.repeat(4000)}"}}\n\n`;
    const split = event(1);
    x.responseChunk(Buffer.from(split.slice(0, 100)));
    x.responseChunk(Buffer.from(split.slice(100)));
    x.responseChunk(Buffer.from(event(2) + event(3)));
    x.responseChunk(Buffer.from('id: 4\ndata: {"jsonrpc":"2.0","method":"small"}\n\n'));
    x.close();
    expect(eventsOf(sink.lines, 'truncated').map((e) => [e.dir, e.limit])).toEqual([
      ['out', 1024],
      ['out', 1024],
      ['out', 1024],
    ]);
    expect(messagesOf(sink.lines).map((m) => m.eventId)).toEqual(['4']);
  });

  it('files a legacy stream under the session its endpoint event names, and closes it with the stream', () => {
    const { sink, recorder: r } = recorder();
    const x = r.exchange({ method: 'GET', url: '/sse', headers: { accept: 'text/event-stream' } });
    x.response(200, { 'content-type': 'text/event-stream' });
    x.responseChunk(Buffer.from('event: endpoint\ndata: /message?sessionId=abc\n\n'));
    x.responseChunk(Buffer.from('event: message\ndata: {"jsonrpc":"2.0","id":0,"result":{}}\n\n'));
    x.close();
    expect(messagesOf(sink.lines)[0]).toMatchObject({ conn: 'abc', stream: 'h1' });
    expect(eventsOf(sink.lines, 'disconnect')[0]).toMatchObject({ conn: 'abc', reason: 'stream_closed' });
    const post = r.exchange({ method: 'POST', url: '/message?sessionId=abc', headers: {} });
    expect(post.conn).toBe('abc');
  });

  it('reads a gzip-encoded answer, and keeps only size and digest of an oversize body', async () => {
    const { sink, recorder: r } = recorder(64);
    const big = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'x', params: { pad: 'y'.repeat(100) } });
    const x = r.exchange({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json' } });
    x.requestChunk(Buffer.from(big.slice(0, 50)));
    x.requestChunk(Buffer.from(big.slice(50)));
    x.requestEnd();
    x.response(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    x.responseChunk(gzipSync('{"jsonrpc":"2.0","id":2,"result":{}}'));
    x.responseEnd();
    await until(() => messagesOf(sink.lines).length > 0);
    expect(eventsOf(sink.lines, 'truncated')[0]).toMatchObject({
      dir: 'in',
      size: big.length,
      sha256: createHash('sha256').update(big).digest('hex'),
    });
    expect(messagesOf(sink.lines).map((m) => m.raw)).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
  });

  it('records only envelopes for traffic that is not MCP, and takes messages a caller parsed itself', () => {
    const { sink, recorder: r } = recorder();
    const token = r.exchange({ method: 'POST', url: '/token', headers: {}, record: 'envelope' });
    token.requestChunk(Buffer.from('{"client_secret":"s"}'));
    token.requestEnd();
    token.response(200, { 'content-type': 'application/json' });
    token.responseChunk(Buffer.from('{"access_token":"a"}'));
    token.responseEnd();
    expect(messagesOf(sink.lines)).toEqual([]);
    const bridged = r.exchange({ method: 'POST', url: '/mcp', headers: { 'mcp-session-id': 's' } });
    bridged.requestMessage({ jsonrpc: '2.0', id: 1, method: 'ping' });
    bridged.responseMessage({ jsonrpc: '2.0', id: 1, result: {} }, undefined, 'ev-9');
    expect(messagesOf(sink.lines).map((m) => [m.dir, m.conn, m.stream, m.eventId])).toEqual([
      ['in', 's', 'h2', undefined],
      ['out', 's', 'h2', 'ev-9'],
    ]);
  });
});

describe('the proxy’s small pieces', () => {
  it('hides credentials in URLs', () => {
    expect(shownUrl('https://me:pw@h.example/mcp?api_key=abc&v=2#x')).toBe(
      'https://[REDACTED:url-userinfo]@h.example/mcp?api_key=[REDACTED:url-query]&v=2#x',
    );
    expect(shownUrl('/message?sessionId=abc')).toBe('/message?sessionId=abc');
    expect(upstreamPath('/mcp?x=1', new URL('http://h/mcp?key=k&x=2'))).toBe('/mcp?x=1&key=k');
    expect(upstreamPath('/other', new URL('http://h/mcp?key=k'))).toBe('/other');
  });

  it('lets local Host and Origin names through, and others only when allowed', () => {
    const none = allowedHosts([]);
    expect(checkLocalRequest('[::1]:7430', undefined, none)).toBeUndefined();
    expect(checkLocalRequest('127.0.0.5:80', 'http://127.0.0.5', none)).toBeUndefined();
    // A page on another local port is another site (a browser-based client such as the Inspector's web UI):
    // refused unless its name is allowed.
    expect(checkLocalRequest('127.0.0.5:80', 'http://localhost:6274', none)).toBe(
      "Origin 'http://localhost:6274' is not this recording proxy's own origin (http://127.0.0.5): pages of other sites, and of other local ports, may not use it (start it with --allow-host localhost to allow it)",
    );
    expect(
      checkLocalRequest('127.0.0.5:80', 'http://localhost:6274', allowedHosts(['localhost'])),
    ).toBeUndefined();
    expect(checkLocalRequest('localhost', 'null', none)).toMatch(
      /^Origin 'null' is not an http or https origin/,
    );
    expect(checkLocalRequest(undefined, undefined, none)).toMatch(/without a Host header/);
    expect(checkLocalRequest('MCP.test', 'https://mcp.test', allowedHosts(['mcp.test:443']))).toBeUndefined();
    expect(checkLocalRequest('anything', 'http://else', allowedHosts(['*']))).toBeUndefined();
  });

  it('drops hop-by-hop headers and those Connection names, keeping case, order and repeats', () => {
    const raw = [
      'Host',
      'x',
      'Connection',
      'close, X-Hop',
      'X-Hop',
      '1',
      'X-Tag',
      'a',
      'X-Tag',
      'b',
      'TE',
      'trailers',
    ];
    expect(forwardableHeaders(raw)).toEqual(['X-Tag', 'a', 'X-Tag', 'b']);
    expect(traceHeaders(raw)['x-tag']).toEqual(['a', 'b']);
  });

  it('rewrites an absolute endpoint naming the upstream, and holds a stream start until told', () => {
    const up = new URL('http://10.0.0.5:3001/sse');
    expect(rewriteEndpoint('http://10.0.0.5:3001/m?s=1', up, 'http://127.0.0.1:7430')).toBe(
      'http://127.0.0.1:7430/m?s=1',
    );
    expect(rewriteEndpoint('/m?s=1', up, 'http://127.0.0.1:7430')).toBeUndefined();
    expect(rewriteEndpoint('http://elsewhere/m', up, 'http://127.0.0.1:7430')).toBeUndefined();
    const out: string[] = [];
    const hold = new EndpointHold((b) => out.push(b.toString()) > 0, 1024);
    hold.push(Buffer.from('event: endpoint\ndata: http://a/m'));
    hold.push(Buffer.from('\n\n'));
    expect(out).toEqual([]);
    hold.release({ from: 'http://a/m', to: 'http://b/m' });
    hold.push(Buffer.from('more'));
    expect(out).toEqual(['event: endpoint\ndata: http://b/m\n\n', 'more']);
  });

  it('parses --listen, IPv6 included', () => {
    expect(parseListen('[::1]:7430')).toEqual({ host: '::1', port: 7430 });
    expect(parseListen('localhost:0')).toEqual({ host: 'localhost', port: 0 });
    expect(() => parseListen('::1:7430')).toThrow(/--listen must be HOST:PORT/);
  });
});

describe('RecordQueue', () => {
  it('runs tasks after the current turn, in order, each seeing the time it was queued', async () => {
    let clock = 1000;
    const later = new RecordQueue(() => clock);
    const seen: [string, number][] = [];
    later.push(() => seen.push(['a', later.now()]));
    clock = 1005;
    later.push(() => {
      seen.push(['b', later.now()]);
      // A task queued by a task runs in the same flush, at the time of the task that queued it.
      later.push(() => seen.push(['c', later.now()]));
    });
    clock = 1010;
    expect(seen).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([
      ['a', 1000],
      ['b', 1005],
      ['c', 1005],
    ]);
    expect(later.now()).toBe(1010);
  });

  it('flush() runs what waits at once; a task that throws does not stop the ones after it', () => {
    const later = new RecordQueue();
    const ran: number[] = [];
    later.push(() => ran.push(1));
    later.push(() => {
      throw new Error('task failed');
    });
    later.push(() => ran.push(3));
    expect(() => later.flush()).toThrow('task failed');
    expect(ran).toEqual([1, 3]);
    later.flush();
    expect(ran).toEqual([1, 3]);
  });

  it('stamps the lines of an HttpRecorder on its clock with the queueing time', async () => {
    let clock = Date.parse('2026-01-01T00:00:00.000Z');
    const later = new RecordQueue(() => clock);
    const sink = new MemorySink();
    sink.start(newMeta({ label: 'unit', transport: 'http' }));
    const r = new HttpRecorder({ sink, now: later.now });
    later.push(() => r.event('rejected', { reason: 'Host' }));
    clock += 250;
    await new Promise((resolve) => setImmediate(resolve));
    expect(eventsOf(sink.lines, 'rejected')[0]?.t).toBe('2026-01-01T00:00:00.000Z');
  });
});
