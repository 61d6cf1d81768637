/**
 * The SDK's Streamable HTTP client against server-everything, directly and through the recording proxy: the
 * client must get the same answers both ways, and the trace must hold every message, paired, with its session,
 * stream and event id, plus the HTTP envelopes.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { collectExchanges } from '../../../src/trace/pairing.js';
import { eventsOf, httpOf, messagesOf, rpcOf, useDirectAndProxied } from '../../helpers/http-proxy.js';

const TOKEN = 'sk-proxytest0123456789abcdefghij';

async function session(url: string) {
  const client = new Client(
    { name: 'tapedeck-http-test', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    model: 'canned',
    role: 'assistant',
    content: { type: 'text', text: 'a canned answer' },
  }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({
    action: 'accept',
    content: { name: 'Ada', check: true, firstLine: 'It was a dark night', integer: 3, number: 2.5 },
  }));
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
  });
  await client.connect(transport);
  const names = async () => (await client.listTools()).tools.map((t) => t.name).sort();
  // Tools that depend on client capabilities are registered just after initialization.
  let tools = await names();
  for (let i = 0; i < 50 && !tools.includes('trigger-elicitation-request'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    tools = await names();
  }
  const echo = await client.callTool({ name: 'echo', arguments: { message: 'through the proxy' } });
  let progress = 0;
  const long = await client.callTool(
    { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
    undefined,
    { onprogress: () => progress++ },
  );
  const sampling = await client.callTool({
    name: 'trigger-sampling-request',
    arguments: { prompt: 'Say hi', maxTokens: 5 },
  });
  const elicitation = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
  await transport.terminateSession();
  await client.close();
  return { tools, echo, long, progress, sampling, elicitation };
}

describe('SDK Streamable HTTP client → recording proxy → server-everything', () => {
  const run = useDirectAndProxied('streamableHttp', '/mcp', session);

  it('gives the client the same answers as a direct connection', () => {
    expect(run.proxied).toEqual(run.direct);
    expect(run.proxied.tools).toContain('trigger-elicitation-request');
    expect(run.proxied.progress).toBe(3);
    expect(JSON.stringify(run.proxied.sampling)).toContain('a canned answer');
    expect(JSON.stringify(run.proxied.elicitation)).toContain('Ada');
  });

  it('pairs every request with its response, in both directions', () => {
    const { exchanges, unanswered, orphans } = collectExchanges(run.lines);
    expect(unanswered.map((x) => x.method)).toEqual([]);
    expect(orphans).toEqual([]);
    const methods = exchanges.map((x) => `${x.dir} ${x.method}`);
    expect(methods).toEqual(
      expect.arrayContaining([
        'in initialize',
        'in tools/list',
        'in tools/call',
        'out sampling/createMessage',
        'out elicitation/create',
      ]),
    );
    const sampling = exchanges.find((x) => x.method === 'sampling/createMessage')!;
    // The server's request travels on the tool call's stream, so it is filed under that call.
    expect(sampling.parent?.method).toBe('tools/call');
    expect(sampling.via).toBe('stream');
  });

  it('files messages under the session, with the stream and event id they came on', () => {
    const messages = messagesOf(run.lines);
    const sessionEvent = eventsOf(run.lines, 'session')[0]!;
    const sessionId = sessionEvent.sessionId as string;
    // The session id is kept as a stable hash: the same marker wherever the id shows up.
    expect(sessionId).toMatch(/^\[REDACTED:mcp-session-id:[0-9a-f]{12}\]$/);
    const init = messages.find((m) => rpcOf(m).method === 'initialize')!;
    // Before the server hands out a session id, the exchange's own stream id stands in for it.
    expect(init.conn).toBe(init.stream);
    expect(sessionEvent.conn).toBe(init.conn);
    const later = messages.filter((m) => m.conn !== init.conn);
    expect(later.length).toBeGreaterThan(10);
    expect(new Set(later.map((m) => m.conn))).toEqual(new Set([sessionId]));
    for (const m of messages) expect(m.stream).toMatch(/^h\d+$/);
    const progress = messages.filter((m) => rpcOf(m).method === 'notifications/progress');
    expect(progress).toHaveLength(3);
    // Event ids resume a stream: each is kept as its own stable hash.
    for (const m of progress) expect(m.eventId).toMatch(/^\[REDACTED:sse-event-id:[0-9a-f]{12}\]$/);
    expect(new Set(progress.map((m) => m.eventId)).size).toBe(3);
    // Priming events (an id and no data) are forwarded but are not messages.
    expect(messages.every((m) => m.raw !== '')).toBe(true);
  });

  it('records the HTTP envelopes with credentials hidden', () => {
    const http = httpOf(run.lines);
    const methods = new Set(http.filter((h) => h.dir === 'in').map((h) => h.method));
    expect(methods).toEqual(new Set(['POST', 'GET', 'DELETE']));
    const statuses = new Set(http.filter((h) => h.dir === 'out').map((h) => h.status));
    expect(statuses).toContain(200);
    expect(statuses).toContain(202);
    const post = http.find((h) => h.dir === 'in' && h.method === 'POST')!;
    expect(post.headers.authorization).toBe('[REDACTED:authorization-header]');
    expect(post.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(JSON.stringify(run.lines)).not.toContain(TOKEN);
    expect(eventsOf(run.lines, 'disconnect').map((e) => e.reason)).toContain('session_deleted');
  });
});
