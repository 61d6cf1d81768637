/**
 * The recording proxy against a hand-written upstream, for what real servers do not do on demand: DNS-rebinding
 * attempts, credentials, OAuth endpoints, 401s, batches, 2026-era error answers, absolute legacy endpoints, odd
 * bodies, hop-by-hop headers — and an upstream that is not there at all.
 */
import { type IncomingMessage, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyNotice } from '../../../src/proxy/http/context.js';
import { collectExchanges } from '../../../src/trace/pairing.js';
import {
  eventsOf,
  freePort,
  httpOf,
  messagesOf,
  type RecordingProxy,
  rpcOf,
  startRecording,
  startUpstream,
} from '../../helpers/http-proxy.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const TOKEN = 'sk-bearer0123456789abcdefghijklmn';
const SSE_BYTES =
  ': comment\r\nretry: 1500\r\nid: 7\r\ndata: {"jsonrpc":"2.0","method":"notifications/message"}\r\n\r\n';

/** A raw request (fetch will not let a test set Host), resolving to status, headers and body. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('the recording proxy in front of a hand-written upstream', () => {
  const seen: Seen[] = [];
  const notices: ProxyNotice[] = [];
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let recording: RecordingProxy;
  let base: string;

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        const path = req.url!.split('?')[0];
        if (path === '/.well-known/oauth-protected-resource/api/mcp') {
          res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
          res.end(JSON.stringify({ resource: `${upstream.origin}/api/mcp`, authorization_servers: ['x'] }));
        } else if (path === '/token') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ access_token: 'at-secret-value', token_type: 'Bearer' }));
        } else if (path === '/sse') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(`event: endpoint\ndata: ${upstream.origin}/messages?sessionId=abc\n\n`);
        } else if (path === '/raw-sse') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(SSE_BYTES);
        } else if (req.headers.authorization === undefined) {
          res.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="x"' });
          res.end();
        } else if (req.headers['mcp-method'] === 'tools/call') {
          // The 2026-07-28 era answers a request it cannot serve with 4xx and a JSON-RPC body.
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({ jsonrpc: '2.0', id: 9, error: { code: -32602, message: 'Unknown tool' } }),
          );
        } else if (body.startsWith('[')) {
          const batch = JSON.parse(body) as { id?: number }[];
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify(
              batch.filter((m) => m.id !== undefined).map((m) => ({ jsonrpc: '2.0', id: m.id, result: {} })),
            ),
          );
        } else if (body.startsWith('{')) {
          res.writeHead(200, {
            'content-type': 'application/json',
            'x-seen-auth': req.headers.authorization,
          });
          res.end(
            JSON.stringify({ jsonrpc: '2.0', id: (JSON.parse(body) as { id: number }).id, result: {} }),
          );
        } else {
          res.writeHead(400, { 'content-type': 'text/plain' });
          res.end(`cannot parse ${body.length} bytes`);
        }
      });
    });
    recording = await startRecording(`${upstream.origin}/api/mcp?key=k-123`, {
      allowHosts: ['mcp.test'],
      onNotice: (notice) => notices.push(notice),
    });
    base = recording.proxy.url.replace(/\/api\/mcp$/, '');
  });

  afterAll(async () => {
    await recording?.stop();
    await upstream?.close();
  });

  const lines = () => recording.sink.lines;

  it('refuses a Host or Origin that is not local, with a 403 that says how to allow it', async () => {
    const before = seen.length;
    const host = await send(`${base}/api/mcp`, { headers: { host: 'evil.example' } });
    expect(host.status).toBe(403);
    expect(JSON.parse(host.body).error.message).toContain("Host 'evil.example' is not allowed");
    expect(host.body).toContain('--allow-host evil.example');
    const origin = await send(`${base}/api/mcp`, { headers: { origin: 'http://evil.example' } });
    expect(origin.status).toBe(403);
    expect(seen.length).toBe(before);
    expect(eventsOf(lines(), 'rejected').length).toBeGreaterThanOrEqual(2);
  });

  it('answers an allowed host name and forwards with the upstream as Host', async () => {
    const res = await send(`${base}/.well-known/oauth-protected-resource/api/mcp`, {
      headers: { host: 'mcp.test:7430', origin: 'http://mcp.test' },
    });
    expect(res.status).toBe(200);
    expect(seen.at(-1)!.headers.host).toBe(new URL(upstream.origin).host);
  });

  it('passes a bearer token to the upstream but keeps it out of the trace', async () => {
    const res = await send(`${base}/api/mcp`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${TOKEN}` },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(res.headers['x-seen-auth']).toBe(`Bearer ${TOKEN}`);
    // The upstream's own query (an API key) is added to requests for its path; the trace hides its value.
    expect(seen.at(-1)!.url).toBe('/api/mcp?key=k-123');
    const text = JSON.stringify(lines());
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('k-123');
    expect(httpOf(lines()).at(-2)!.url).toBe(`${upstream.origin}/api/mcp?key=[REDACTED:url-query]`);
  });

  it('passes 401 with WWW-Authenticate through', async () => {
    const res = await send(`${base}/api/mcp`, {
      method: 'POST',
      headers: json,
      body: '{"jsonrpc":"2.0","id":2,"method":"ping"}',
    });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer resource_metadata="x"');
  });

  it('names itself in protected-resource metadata; forwards other OAuth endpoints unchanged, by their envelopes', async () => {
    const meta = await send(`${base}/.well-known/oauth-protected-resource/api/mcp`);
    expect(meta.headers['cache-control']).toBe('max-age=60');
    expect(JSON.parse(meta.body).resource).toBe(`${base}/api/mcp`);
    const token = await send(`${base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&code=c0de&client_id=me',
    });
    expect(JSON.parse(token.body).access_token).toBe('at-secret-value');
    expect(seen.at(-1)!.body).toBe('grant_type=authorization_code&code=c0de&client_id=me');
    const tokenStream = httpOf(lines()).find((h) => h.url?.endsWith('/token'))!.stream;
    expect(messagesOf(lines()).filter((m) => m.stream === tokenStream)).toEqual([]);
    expect(JSON.stringify(lines())).not.toContain('at-secret-value');
  });

  it('says once that the upstream asks for OAuth', async () => {
    // Earlier tests read the protected-resource metadata through the proxy and met a 401 Bearer challenge.
    expect(notices).toEqual([
      { kind: 'oauth', status: 200, path: '/.well-known/oauth-protected-resource/api/mcp' },
    ]);
    const again = await send(`${base}/api/mcp`, {
      method: 'POST',
      headers: json,
      body: '{"jsonrpc":"2.0","id":3,"method":"ping"}',
    });
    expect(again.status).toBe(401);
    expect(notices).toHaveLength(1);
  });

  it('records a batch as one line each way, and pairing answers every request in it', async () => {
    const batch =
      '[{"jsonrpc":"2.0","id":11,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":12,"method":"ping"}]';
    const res = await send(`${base}/api/mcp`, {
      method: 'POST',
      headers: { ...json, authorization: 'Bearer x' },
      body: batch,
    });
    expect(JSON.parse(res.body)).toHaveLength(2);
    const stream = messagesOf(lines()).find((m) => Array.isArray(m.raw))!.stream;
    const both = messagesOf(lines()).filter((m) => m.stream === stream);
    expect(both.map((m) => [m.dir, Array.isArray(m.raw)])).toEqual([
      ['in', true],
      ['out', true],
    ]);
    const answered = collectExchanges(lines()).exchanges.filter((x) => x.requestRef.line.stream === stream);
    expect(answered.map((x) => x.id)).toEqual([11, 12]);
  });

  it('records a 2026-era 404 answer with its JSON-RPC body, and passes Mcp-Method and Mcp-Name on', async () => {
    const res = await send(`${base}/api/mcp`, {
      method: 'POST',
      headers: {
        ...json,
        authorization: 'Bearer x',
        'mcp-method': 'tools/call',
        'mcp-name': 'nope',
        'mcp-protocol-version': '2026-07-28',
      },
      body: '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"nope"}}',
    });
    expect(res.status).toBe(404);
    expect(seen.at(-1)!.headers['mcp-name']).toBe('nope');
    const answer = messagesOf(lines()).at(-1)!;
    expect(rpcOf(answer).error?.message).toBe('Unknown tool');
    const envelope = httpOf(lines()).filter((h) => h.stream === answer.stream);
    expect(envelope.map((h) => h.status ?? h.headers['mcp-method'])).toEqual(['tools/call', 404]);
  });

  it('rewrites an absolute legacy endpoint to the proxy, keeping path and query', async () => {
    const res = await send(`${base}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(res.body).toBe(`event: endpoint\ndata: ${base}/messages?sessionId=abc\n\n`);
    // The trace keeps the legacy session id as a stable hash, in conn as in the URL.
    const endpoint = eventsOf(lines(), 'endpoint').at(-1)!;
    expect(endpoint.conn).toMatch(/^\[REDACTED:mcp-session-id:[0-9a-f]{12}\]$/);
    expect(endpoint.url).toBe(`${upstream.origin}/messages?sessionId=${endpoint.conn}`);
  });

  it('passes an event stream through byte for byte (comments, retry, ids, CRLF)', async () => {
    const res = await send(`${base}/raw-sse`, { headers: { accept: 'text/event-stream' } });
    expect(res.body).toBe(SSE_BYTES);
    const event = messagesOf(lines()).at(-1)!;
    expect(event).toMatchObject({ dir: 'out', eventId: '7', raw: { method: 'notifications/message' } });
    expect(eventsOf(lines(), 'sse_retry').at(-1)!.retryMs).toBe(1500);
  });

  it('records a body that is not JSON as an event and passes it through', async () => {
    const res = await send(`${base}/api/mcp`, {
      method: 'POST',
      headers: { ...json, authorization: 'Bearer x' },
      body: 'not json',
    });
    expect(res.body).toBe('cannot parse 8 bytes');
    const notJson = eventsOf(lines(), 'non_json_body').slice(-2);
    expect(notJson.map((e) => [e.dir, e.head])).toEqual([
      ['in', 'not json'],
      ['out', 'cannot parse 8 bytes'],
    ]);
  });

  it('drops hop-by-hop headers on the way', async () => {
    await send(`${base}/api/mcp`, {
      method: 'POST',
      headers: {
        ...json,
        authorization: 'Bearer x',
        connection: 'keep-alive, x-hop',
        'x-hop': '1',
        'x-kept': '2',
        'keep-alive': 'timeout=5',
      },
      body: '{"jsonrpc":"2.0","id":3,"method":"ping"}',
    });
    const headers = seen.at(-1)!.headers;
    expect(headers['x-kept']).toBe('2');
    expect(headers['x-hop']).toBeUndefined();
    expect(headers['keep-alive']).toBeUndefined();
  });

  it('answers 502 with a JSON-RPC error naming the upstream when it cannot be reached', async () => {
    const dead = await startRecording(`http://127.0.0.1:${await freePort()}/mcp`);
    try {
      const res = await send(dead.proxy.url, {
        method: 'POST',
        headers: json,
        body: '{"jsonrpc":"2.0","id":"q1","method":"ping"}',
      });
      expect(res.status).toBe(502);
      const body = JSON.parse(res.body);
      expect(body).toMatchObject({ jsonrpc: '2.0', id: 'q1', error: { code: -32000 } });
      expect(body.error.message).toMatch(
        /^upstream http:\/\/127\.0\.0\.1:\d+\/mcp unreachable: ECONNREFUSED/,
      );
      expect(eventsOf(dead.sink.lines, 'upstream_error')[0]).toMatchObject({
        error: 'ECONNREFUSED',
        status: 502,
      });
    } finally {
      await dead.stop();
    }
  });
});
