import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { instrument } from '../../src/instrument/index.js';
import { NODE_MODULES } from '../helpers/peers.js';
import { eventsOf, linkClient, memoryEvents } from './helpers.js';

/** server-everything's factory (dist/server/index.js); the package ships no types. */
interface EverythingFactory {
  createServer(): { server: McpServer; cleanup: (sessionId?: string) => void };
}

const FACTORY = join(NODE_MODULES, '@modelcontextprotocol/server-everything/dist/server/index.js');

describe('instrument: the reference server (server-everything) driven by the SDK client', () => {
  it('records its tools, prompts and resources, the tools it registers after initialize, progress and sampling', async () => {
    const { createServer } = (await import(pathToFileURL(FACTORY).href)) as EverythingFactory;
    const { server, cleanup } = createServer();
    const kept = memoryEvents();
    const errors: Error[] = [];
    const recorder = instrument(server, {
      to: { type: 'sink', sink: kept.sink },
      flushInterval: 60_000,
      onError: (e) => errors.push(e),
    });
    const client = await linkClient(server, {
      client: { name: 'everything-probe', version: '1.0.0' },
      clientOptions: { capabilities: { sampling: {} } },
      setup: (c) =>
        c.setRequestHandler(CreateMessageRequestSchema, async () => ({
          model: 'canned-model',
          role: 'assistant',
          content: { type: 'text', text: 'hello from the client' },
        })),
    });
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('trigger-sampling-request');
      await client.callTool({ name: 'echo', arguments: { message: 'hi everything' } });
      await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
      const progress: number[] = [];
      await client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } },
        undefined,
        { onprogress: (p) => progress.push(p.progress) },
      );
      // Registered by the server after initialize, once it knew the client can sample.
      const sampled = await client.callTool({
        name: 'trigger-sampling-request',
        arguments: { prompt: 'Say hi', maxTokens: 10 },
      });
      expect(JSON.stringify(sampled)).toContain('hello from the client');
      await client.callTool({ name: 'no-such-tool', arguments: {} });
      await client.getPrompt({ name: 'simple-prompt' });
      const resources = await client.listResources();
      const document = resources.resources.find((r) => r.uri.startsWith('demo://resource/static/document/'));
      expect(document).toBeDefined();
      await client.readResource({ uri: document!.uri });
      await recorder.flush();

      expect(errors).toEqual([]);
      expect(kept.events[0]).toMatchObject({
        method: 'initialize',
        outcome: 'ok',
        client: { name: 'everything-probe', version: '1.0.0' },
        server: { name: 'mcp-servers/everything', version: '2.0.0' },
      });
      const calls = eventsOf(kept.events, 'tools/call');
      expect(calls.map((e) => [e.target, e.outcome])).toEqual([
        ['echo', 'ok'],
        ['get-sum', 'ok'],
        ['trigger-long-running-operation', 'ok'],
        ['trigger-sampling-request', 'ok'],
        ['no-such-tool', 'tool_error'],
      ]);
      expect(JSON.stringify(calls[0]?.result)).toContain('hi everything');
      expect(calls[2]?.related.progress).toBe(progress.length);
      expect(calls[2]?.related.progress).toBeGreaterThanOrEqual(1);
      expect(calls[2]?.durationMs).toBeGreaterThan(100);
      expect(calls[3]?.related.requests).toBe(1);
      expect(eventsOf(kept.events, 'prompts/get', 'simple-prompt')[0]?.outcome).toBe('ok');
      expect(eventsOf(kept.events, 'resources/read', document!.uri)[0]?.outcome).toBe('ok');
      expect(new Set(kept.events.map((e) => e.sessionId)).size).toBe(1);
    } finally {
      await client.close();
      cleanup();
      await recorder.shutdown();
    }
  });
});
