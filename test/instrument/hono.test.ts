import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRecorder, httpMiddleware } from '../../src/instrument/index.js';
import { eventsOf, memoryEvents } from './helpers.js';

describe('instrument behind Hono, stateless (a new server per request)', () => {
  it('records every request with the HTTP facts of its Hono request, one session per caller and client, and the 2026-era _meta client info', async () => {
    const kept = memoryEvents();
    const recorder = createRecorder({
      to: { type: 'sink', sink: kept.sink },
      flushInterval: 60_000,
      getUser: (ctx) =>
        ctx.headers['x-user'] === undefined ? undefined : { id: String(ctx.headers['x-user']) },
    });
    const app = new Hono();
    app.use('*', httpMiddleware({ trustProxy: true }));
    app.all('/mcp', async (c) => {
      const server = new McpServer({ name: 'stateless', version: '9.9.9' });
      server.registerTool('echo', { inputSchema: { message: z.string() } }, async ({ message }) => ({
        content: [{ type: 'text', text: message }],
      }));
      const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
      await recorder.instrument(server).connect(transport);
      return transport.handleRequest(c.req.raw);
    });

    const client = new Client({ name: 'hono-probe', version: '3.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://mcp.test/mcp'), {
        fetch: async (url, init) => app.request(String(url), init),
        requestInit: { headers: { 'x-user': 'grace', 'x-forwarded-for': '198.51.100.7' } },
      }),
    );
    await client.callTool({ name: 'echo', arguments: { message: 'one' } });
    await client.callTool({
      name: 'echo',
      arguments: { message: 'two' },
      _meta: {
        'io.modelcontextprotocol/clientInfo': { name: 'modern-client', version: '2026.1' },
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      },
    });
    await client.close();
    await recorder.flush();

    const [one, two] = eventsOf(kept.events, 'tools/call', 'echo');
    for (const event of [one, two]) {
      expect(event).toMatchObject({
        outcome: 'ok',
        transport: 'http',
        identity: { kind: 'user', key: 'grace' },
      });
      expect(event?.http).toMatchObject({
        method: 'POST',
        url: 'http://mcp.test/mcp',
        peerAddress: '198.51.100.7',
      });
      // No initialize on this connection: the server's name comes from the one the recorder saw.
      expect(event?.server).toEqual({ name: 'stateless', version: '9.9.9' });
    }
    // Its connection never saw initialize: the client is the one this caller named, and so is the session.
    expect(one?.client).toEqual({ name: 'hono-probe', version: '3.0.0' });
    expect(one?.sessionId).toBe(eventsOf(kept.events, 'initialize')[0]?.sessionId);
    expect(two?.sessionId).not.toBe(one?.sessionId);
    expect(two?.client).toEqual({ name: 'modern-client', version: '2026.1' });
    expect(two?.protocolVersion).toBe('2026-07-28');
  });
});
