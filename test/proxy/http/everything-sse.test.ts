/**
 * The SDK's legacy SSE client against server-everything's `sse` mode through the recording proxy: the client
 * must find the POST endpoint through the proxy, and the answers that arrive on the GET stream are filed under
 * the session the endpoint named.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { describe, expect, it } from 'vitest';
import { collectExchanges } from '../../../src/trace/pairing.js';
import { eventsOf, httpOf, messagesOf, rpcOf, useDirectAndProxied } from '../../helpers/http-proxy.js';

async function session(url: string) {
  const client = new Client({ name: 'tapedeck-sse-test', version: '1.0.0' });
  const transport = new SSEClientTransport(new URL(url));
  await client.connect(transport);
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  const echo = await client.callTool({ name: 'echo', arguments: { message: 'legacy' } });
  let progress = 0;
  const long = await client.callTool(
    { name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } },
    undefined,
    { onprogress: () => progress++ },
  );
  await client.close();
  return { tools, echo, long, progress };
}

describe('SDK SSE client → recording proxy → server-everything (legacy HTTP+SSE)', () => {
  const run = useDirectAndProxied('sse', '/sse', session);

  it('gives the client the same answers as a direct connection', () => {
    expect(run.proxied).toEqual(run.direct);
    // The SDK client may drop the last progress callback when the result arrives right behind it, directly too.
    expect(run.proxied.progress).toBeGreaterThanOrEqual(1);
  });

  it('records the endpoint and files the GET stream answers under its session', () => {
    const endpoint = eventsOf(run.lines, 'endpoint')[0]!;
    // The legacy session id is kept as a stable hash, the same in the URL and in conn.
    expect(endpoint.url).toMatch(/^\/message\?sessionId=\[REDACTED:mcp-session-id:[0-9a-f]{12}\]$/);
    const sessionId = new URLSearchParams(String(endpoint.url).split('?')[1]).get('sessionId')!;
    expect(endpoint.conn).toBe(sessionId);
    const messages = messagesOf(run.lines);
    expect(new Set(messages.map((m) => m.conn))).toEqual(new Set([sessionId]));
    const getStream = httpOf(run.lines).find((h) => h.dir === 'in' && h.method === 'GET')!.stream;
    // Every answer comes back on the GET stream; every request went in on a POST of its own.
    for (const m of messages.filter((m) => m.dir === 'out')) expect(m.stream).toBe(getStream);
    const posts = messages.filter((m) => m.dir === 'in').map((m) => m.stream);
    expect(new Set(posts).size).toBe(posts.length);
    expect(posts).not.toContain(getStream);
    const { unanswered, orphans, exchanges } = collectExchanges(run.lines);
    expect(unanswered).toEqual([]);
    expect(orphans).toEqual([]);
    expect(exchanges.map((x) => x.method)).toEqual(['initialize', 'tools/list', 'tools/call', 'tools/call']);
    expect(messages.filter((m) => rpcOf(m).method === 'notifications/progress')).toHaveLength(2);
  });

  it('treats the POSTs\u2019 202 "Accepted" bodies as no message and notes the stream closing', () => {
    expect(eventsOf(run.lines, 'non_json_body')).toEqual([]);
    expect(
      httpOf(run.lines).filter((h) => h.dir === 'out' && h.status === 202).length,
    ).toBeGreaterThanOrEqual(4);
    expect(eventsOf(run.lines, 'disconnect').map((e) => e.reason)).toEqual(['stream_closed']);
  });
});
