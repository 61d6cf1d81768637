/**
 * Cassettes recorded by other tools — mcporter NDJSON and an mcp-tape JSONL session — served by `tapedeck replay`
 * to the official SDK client: every call the client makes gets the recorded result.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { loadCassette } from '../../src/replay/cassette/load.js';
import type { Cassette } from '../../src/replay/cassette/types.js';
import type { Json } from '../../src/trace/types.js';
import { connectSession, replayCommand } from '../helpers/replay.js';
import { INTEROP } from '../replay/helpers.js';

/** The recorded result of the first exchange whose method and params (ignoring _meta) are these. */
function recordedResult(cassette: Cassette, method: string, params?: Record<string, Json>): Json | undefined {
  const exchange = cassette.exchanges.find((x) => {
    if (x.method !== method) return false;
    const { _meta, ...rest } = x.request.params ?? {};
    return JSON.stringify(rest) === JSON.stringify(params ?? {});
  });
  return exchange?.response?.result;
}

describe('tapedeck replay serves other tools’ recordings to the SDK client', () => {
  it.each([
    ['mcporter/everything-get-sum.ndjson', 'get-sum', { a: 2, b: 3 }],
    ['mcporter/everything-long-running.ndjson', 'trigger-long-running-operation', { duration: 1, steps: 2 }],
  ])('%s: initialize, tools/list and the call, every exchange used', async (name, tool, args) => {
    const path = INTEROP + name;
    const { cassette } = await loadCassette(path);
    const session = await connectSession(replayCommand(path));
    const tools = await session.client.listTools();
    const result = await session.client.callTool({ name: tool, arguments: args });
    const { code, stderr } = await session.finish();
    expect(session.client.getServerVersion()).toMatchObject({ name: 'mcp-servers/everything' });
    expect(tools).toEqual(recordedResult(cassette, 'tools/list'));
    expect(result).toEqual(recordedResult(cassette, 'tools/call', { name: tool, arguments: args }));
    expect(stderr).toBe('tapedeck: replayed 3/3 exchanges\n');
    expect(code).toBe(0);
  });

  it('mcp-tape/everything-stdio.jsonl: the calls the client makes get the recorded results', async () => {
    const path = `${INTEROP}mcp-tape/everything-stdio.jsonl`;
    const { cassette } = await loadCassette(path);
    const asked: string[] = [];
    const setup = (client: Client) => {
      client.setRequestHandler(CreateMessageRequestSchema, async (r) => {
        asked.push(r.method);
        return {
          model: 'fake-model',
          stopReason: 'endTurn',
          role: 'assistant',
          content: { type: 'text', text: 'canned sampling reply' },
        };
      });
      client.setRequestHandler(ElicitRequestSchema, async (r) => {
        asked.push(r.method);
        return { action: 'decline' };
      });
      client.setRequestHandler(ListRootsRequestSchema, async (r) => {
        asked.push(r.method);
        return { roots: [{ uri: 'file:///home/dev/project', name: 'probe' }] };
      });
    };
    const session = await connectSession(
      replayCommand(path, ['--allow-unused']),
      { capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } } },
      setup,
    );
    const { client } = session;
    const progress: number[] = [];
    const calls: [string, Record<string, Json> | undefined, () => Promise<unknown>][] = [
      ['tools/list', undefined, () => client.listTools()],
      ['resources/list', undefined, () => client.listResources()],
      ['prompts/list', undefined, () => client.listPrompts()],
      [
        'tools/call',
        { name: 'echo', arguments: { message: 'hello' } },
        () => client.callTool({ name: 'echo', arguments: { message: 'hello' } }),
      ],
      [
        'tools/call',
        { name: 'trigger-long-running-operation', arguments: { duration: 2, steps: 4 } },
        () =>
          client.callTool(
            { name: 'trigger-long-running-operation', arguments: { duration: 2, steps: 4 } },
            undefined,
            { onprogress: (p) => progress.push(p.progress) },
          ),
      ],
      [
        'tools/call',
        { name: 'trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 20 } },
        () =>
          client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 20 } }),
      ],
      [
        'tools/call',
        { name: 'trigger-elicitation-request', arguments: {} },
        () => client.callTool({ name: 'trigger-elicitation-request', arguments: {} }),
      ],
      [
        'resources/read',
        { uri: 'demo://resource/static/document/architecture.md' },
        () => client.readResource({ uri: 'demo://resource/static/document/architecture.md' }),
      ],
      [
        'prompts/get',
        { name: 'simple-prompt', arguments: {} },
        () => client.getPrompt({ name: 'simple-prompt', arguments: {} }),
      ],
    ];
    for (const [method, params, call] of calls) {
      expect({ method, params, result: await call() }).toEqual({
        method,
        params,
        result: recordedResult(cassette, method, params),
      });
    }
    const { code, stderr } = await session.finish();
    expect(progress).toEqual([1, 2, 3, 4].slice(0, progress.length));
    expect(progress.length).toBeGreaterThanOrEqual(3);
    // The recording's roots/list (after initialized), sampling and elicitation reached the client's handlers.
    expect(asked.sort()).toEqual(['elicitation/create', 'roots/list', 'sampling/createMessage']);
    expect(stderr).toMatch(
      /^tapedeck: note: the client's answer to elicitation\/create differs at \$\.result\.action/m,
    );
    expect(stderr).toMatch(/^tapedeck: replayed 10\/26 exchanges\n/m);
    expect(code).toBe(0);
  });
});
