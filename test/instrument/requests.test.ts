import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { instrument } from '../../src/instrument/index.js';
import { eventsOf, linkClient, memoryEvents } from './helpers.js';

function sampleServer(): McpServer {
  const server = new McpServer({ name: 'sample', version: '3.1.0' }, { capabilities: { logging: {} } });
  server.registerTool('echo', { inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: 'text', text: `Echo: ${message}` }],
  }));
  server.registerTool('refuse', {}, async () => ({ content: [{ type: 'text', text: 'no' }], isError: true }));
  server.registerTool('explode', {}, async () => {
    throw new Error('kaboom');
  });
  server.registerPrompt('greet', { argsSchema: { who: z.string() } }, ({ who }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello ${who}` } }],
  }));
  server.registerResource('readme', 'file:///readme.md', {}, async (uri) => ({
    contents: [{ uri: uri.href, text: '# readme' }],
  }));
  return server;
}

describe('instrument: every request kind over linked in-memory transports', () => {
  it('captures each request with its target, a duration, and the result kept apart from errors', async () => {
    const kept = memoryEvents();
    const server = sampleServer();
    const recorder = instrument(server, {
      to: { type: 'sink', sink: kept.sink },
      onError: (e) => kept.ended.push(e.message),
    });
    const client = await linkClient(server, { client: { name: 'probe', version: '0.9.0' } });

    await client.listTools();
    await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    await client.callTool({ name: 'refuse', arguments: {} });
    await client.callTool({ name: 'explode', arguments: {} });
    await client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } });
    await expect(client.getPrompt({ name: 'missing' })).rejects.toThrow();
    await client.readResource({ uri: 'file:///readme.md' });
    await expect(client.readResource({ uri: 'file:///nope' })).rejects.toThrow();
    await client.listPrompts();
    await client.listResources();
    await client.ping();
    await recorder.flush();

    const methods = kept.events.map((e) => (e.target === undefined ? e.method : `${e.method} ${e.target}`));
    expect(methods).toEqual([
      'initialize',
      'tools/list',
      'tools/call echo',
      'tools/call refuse',
      'tools/call explode',
      'prompts/get greet',
      'prompts/get missing',
      'resources/read file:///readme.md',
      'resources/read file:///nope',
      'prompts/list',
      'resources/list',
      'ping',
    ]);
    for (const event of kept.events) {
      expect(event.durationMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(event.startedAt)).not.toBeNaN();
      expect(event.transport).toBe('memory');
      expect(event.client).toEqual({ name: 'probe', version: '0.9.0' });
      expect(event.server).toEqual({ name: 'sample', version: '3.1.0' });
      expect(event.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }

    const [echo] = eventsOf(kept.events, 'tools/call', 'echo');
    expect(echo).toMatchObject({
      outcome: 'ok',
      isError: false,
      params: { name: 'echo', arguments: { message: 'hi' } },
    });
    expect(echo?.result).toEqual({ content: [{ type: 'text', text: 'Echo: hi' }] });
    expect(echo?.error).toBeUndefined();

    const [refuse] = eventsOf(kept.events, 'tools/call', 'refuse');
    expect(refuse).toMatchObject({ outcome: 'tool_error', isError: true });
    expect(refuse?.error).toBeUndefined();
    const [explode] = eventsOf(kept.events, 'tools/call', 'explode');
    expect(explode).toMatchObject({ outcome: 'tool_error', isError: true });

    const [missing] = eventsOf(kept.events, 'prompts/get', 'missing');
    expect(missing?.outcome).toBe('error');
    expect(missing?.error?.code).toBe(-32602);
    expect(missing?.error?.message).toContain('missing');
    expect(missing?.result).toBeUndefined();
    expect(missing?.isError).toBeUndefined();

    const [greet] = eventsOf(kept.events, 'prompts/get', 'greet');
    expect(greet?.outcome).toBe('ok');
    expect(JSON.stringify(greet?.result)).toContain('Hello Ada');
    expect(eventsOf(kept.events, 'resources/read', 'file:///nope')[0]?.outcome).toBe('error');

    // One client, one identity: one session for all of it.
    expect(new Set(kept.events.map((e) => e.sessionId)).size).toBe(1);
    expect(kept.events[0]?.identity.kind).toBe('process');
    await client.close();
  });

  it('records tools, prompts and resources registered after instrument() and after connect()', async () => {
    const kept = memoryEvents();
    const server = new McpServer({ name: 'late', version: '1.0.0' });
    server.registerTool('first', {}, async () => ({ content: [{ type: 'text', text: '1' }] }));
    const recorder = instrument(server, { to: { type: 'sink', sink: kept.sink } });
    server.registerTool('second', {}, async () => ({ content: [{ type: 'text', text: '2' }] }));
    server.registerPrompt('later', {}, () => ({ messages: [] }));
    const client = await linkClient(server);
    server.registerTool('third', {}, async () => ({ content: [{ type: 'text', text: '3' }] }));
    // The SDK adds a capability only before connect(); a second prompt needs none.
    server.registerPrompt('latest', {}, () => ({ messages: [] }));

    for (const name of ['first', 'second', 'third']) await client.callTool({ name, arguments: {} });
    await client.getPrompt({ name: 'later' });
    await client.getPrompt({ name: 'latest' });
    await recorder.flush();
    expect(eventsOf(kept.events, 'tools/call').map((e) => e.target)).toEqual(['first', 'second', 'third']);
    expect(eventsOf(kept.events, 'prompts/get').map((e) => [e.target, e.outcome])).toEqual([
      ['later', 'ok'],
      ['latest', 'ok'],
    ]);
    await client.close();
  });

  it('attributes progress, log messages and a sampling request to the call that caused them', async () => {
    const kept = memoryEvents();
    const server = new McpServer({ name: 'busy', version: '1.0.0' }, { capabilities: { logging: {} } });
    server.registerTool('work', {}, async (extra) => {
      const progressToken = extra._meta?.progressToken;
      if (progressToken !== undefined) {
        for (let progress = 1; progress <= 3; progress += 1) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress, total: 3 },
          });
        }
      }
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', data: 'halfway' },
      });
      const sampled = await extra.sendRequest(
        {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 5 },
        },
        CreateMessageResultSchema,
      );
      return { content: [{ type: 'text', text: `model said ${JSON.stringify(sampled.content)}` }] };
    });
    server.registerTool('quiet', {}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
    const recorder = instrument(server, { to: { type: 'sink', sink: kept.sink }, relatedMessages: 'full' });
    const client = await linkClient(server, {
      clientOptions: { capabilities: { sampling: {} } },
      setup: (c) =>
        c.setRequestHandler(CreateMessageRequestSchema, async () => ({
          model: 'canned',
          role: 'assistant',
          content: { type: 'text', text: 'hi!' },
        })),
    });

    const progress: number[] = [];
    await Promise.all([
      client.callTool({ name: 'work', arguments: {} }, undefined, {
        onprogress: (p) => progress.push(p.progress),
      }),
      client.callTool({ name: 'quiet', arguments: {} }),
    ]);
    await recorder.flush();

    expect(progress).toEqual([1, 2, 3]);
    const [work] = eventsOf(kept.events, 'tools/call', 'work');
    expect(work?.related).toMatchObject({ progress: 3, logs: 1, requests: 1, notifications: 0 });
    const kinds = work?.related.messages?.map(
      (m) => `${m.dir} ${(m.message as { method?: string }).method ?? 'answer'}`,
    );
    expect(kinds).toEqual([
      'out notifications/progress',
      'out notifications/progress',
      'out notifications/progress',
      'out notifications/message',
      'out sampling/createMessage',
      'in answer',
    ]);
    expect(JSON.stringify(work?.related.messages?.at(-1)?.message)).toContain('canned');
    const [quiet] = eventsOf(kept.events, 'tools/call', 'quiet');
    expect(quiet?.related).toEqual({ progress: 0, logs: 0, requests: 0, notifications: 0 });
    await client.close();
  });

  it('marks a cancelled call as cancelled and keeps the client trace context of a request', async () => {
    const kept = memoryEvents();
    const server = new McpServer({ name: 'slow', version: '1.0.0' });
    server.registerTool('wait', {}, async (extra) => {
      await new Promise((resolve) => extra.signal.addEventListener('abort', resolve));
      return { content: [] };
    });
    server.registerTool('traced', {}, async () => ({ content: [] }));
    const recorder = instrument(server, { to: { type: 'sink', sink: kept.sink } });
    const client = await linkClient(server);

    const abort = new AbortController();
    const pending = client.callTool({ name: 'wait', arguments: {} }, undefined, { signal: abort.signal });
    await new Promise((resolve) => setTimeout(resolve, 10));
    abort.abort('enough');
    await expect(pending).rejects.toThrow();
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await client.callTool({
      name: 'traced',
      arguments: {},
      _meta: { traceparent, tracestate: 'vendor=1', baggage: 'tenant=acme' },
    });
    await recorder.flush();

    expect(eventsOf(kept.events, 'tools/call', 'wait')[0]?.outcome).toBe('cancelled');
    expect(eventsOf(kept.events, 'tools/call', 'traced')[0]?.traceContext).toEqual({
      traceparent,
      tracestate: 'vendor=1',
      baggage: 'tenant=acme',
    });
    await client.close();
  });

  it('instruments a low-level Server and ends open requests as closed when the connection goes', async () => {
    const kept = memoryEvents();
    const server = new Server({ name: 'low', version: '0.1.0' }, { capabilities: { tools: {} } });
    let release: () => void = () => {};
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      if (request.params.name === 'hang') await new Promise<void>((resolve) => (release = resolve));
      return { content: [] };
    });
    const recorder = instrument(server, { to: { type: 'sink', sink: kept.sink } });
    const client = await linkClient(server);
    await client.listTools();
    const hanging = client.callTool({ name: 'hang', arguments: {} }).catch(() => 'closed');
    await new Promise((resolve) => setTimeout(resolve, 10));
    await client.close();
    expect(await hanging).toBe('closed');
    release();
    await recorder.flush();
    expect(kept.events.map((e) => [e.method, e.outcome])).toEqual([
      ['initialize', 'ok'],
      ['tools/list', 'ok'],
      ['tools/call', 'closed'],
    ]);
  });

  it('refuses a server that is already connected, and a second recorder on the same server', async () => {
    const kept = memoryEvents();
    const server = new McpServer({ name: 'x', version: '1' });
    const recorder = instrument(server, { to: { type: 'sink', sink: kept.sink } });
    expect(() => instrument(server, { to: { type: 'sink', sink: kept.sink } })).toThrow(
      /already instrumented/,
    );
    expect(instrument(server, recorder)).toBe(recorder);
    const other = new McpServer({ name: 'y', version: '1' });
    const client = await linkClient(other);
    expect(() => instrument(other, recorder)).toThrow(/before server.connect/);
    await client.close();
  });
});
