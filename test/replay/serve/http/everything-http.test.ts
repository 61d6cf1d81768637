/**
 * A session recorded over stdio (the official SDK client ↔ server-everything through `tapedeck record`), served
 * with `tapedeck replay --http` to the SDK's Streamable HTTP client and with `--sse` to its legacy SSE client:
 * the same results, progress through onprogress, the client's own sampling and roots handlers asked — roots on
 * the session's GET stream, as nothing asked for it — and every exchange used.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  type CreateMessageResult,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  connectClient,
  everythingServer,
  makeTempDir,
  readTrace,
  recorded,
  removeTempDir,
  rpc,
  traceParts,
} from '../../../helpers/peers.js';
import { outcome } from '../../../helpers/replay.js';
import { type HttpReplayProcess, startHttpReplay } from './helpers.js';

const STEPS = 4;
const CAPABILITIES = { capabilities: { sampling: {}, roots: { listChanged: true } } };
const SAMPLE: CreateMessageResult = {
  model: 'canned-model',
  role: 'assistant',
  content: { type: 'text', text: 'A canned answer from the test client.' },
  stopReason: 'endTurn',
};

/** The client's side of server→client requests: canned answers, every method asked kept. */
function handle(client: Client, asked: string[]): void {
  client.setRequestHandler(CreateMessageRequestSchema, async (r) => {
    asked.push(r.method);
    return SAMPLE;
  });
  client.setRequestHandler(ListRootsRequestSchema, async (r) => {
    asked.push(r.method);
    return { roots: [{ uri: 'file:///work/project', name: 'project' }] };
  });
}

async function exercise(client: Client) {
  const progress: { progress: number; total?: number | undefined }[] = [];
  const results = {
    server: client.getServerVersion(),
    tools: await outcome(() => client.listTools()),
    echo: await outcome(() => client.callTool({ name: 'echo', arguments: { message: 'over HTTP ✓' } })),
    longRunning: await outcome(() =>
      client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: STEPS } },
        undefined,
        { onprogress: (p) => progress.push({ progress: p.progress, total: p.total }) },
      ),
    ),
    sampling: await outcome(() =>
      client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'Say hi', maxTokens: 25 } }),
    ),
  };
  return { results, progress };
}

/** Waits (bounded) until the client's roots handler was asked. */
async function rootsAsked(asked: string[]): Promise<void> {
  const until = Date.now() + 3000;
  while (!asked.includes('roots/list') && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}

describe('tapedeck replay --http and --sse serve a stdio recording to the SDK HTTP clients', () => {
  let tmp: string | undefined;
  let cassette: string;
  let exchanges: number;
  let live: Awaited<ReturnType<typeof exercise>>;
  const liveAsked: string[] = [];
  let replay: HttpReplayProcess | undefined;

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-replay-http-');
    cassette = join(tmp, 'everything.jsonl');
    const recording = await connectClient(
      recorded(everythingServer(), { file: cassette }),
      CAPABILITIES,
      (c) => handle(c, liveAsked),
    );
    try {
      live = await exercise(recording.client);
      // server-everything asks for roots ~350 ms after init; let that land in the recording too.
      await rootsAsked(liveAsked);
    } finally {
      await recording.client.close();
    }
    exchanges = traceParts(readTrace(cassette))
      .in.map(rpc)
      .filter((m) => m.method !== undefined && m.id !== undefined).length;
  });

  afterEach(async () => {
    await replay?.stop('SIGKILL');
    replay = undefined;
  });

  afterAll(() => removeTempDir(tmp));

  it.each([
    ['Streamable HTTP', [] as string[], (url: URL): Transport => new StreamableHTTPClientTransport(url)],
    ['legacy SSE', ['--sse'], (url: URL): Transport => new SSEClientTransport(url)],
  ])(
    'over %s: the live results, progress, sampling and roots, then replayed N/N',
    async (_name, flags, transport) => {
      expect(liveAsked.sort()).toEqual(['roots/list', 'sampling/createMessage']);
      replay = await startHttpReplay(cassette, flags);
      expect(new URL(replay.url).pathname).toBe(flags.includes('--sse') ? '/sse' : '/mcp');
      const asked: string[] = [];
      const client = new Client({ name: 'a-fresh-http-client', version: '9.9.9' }, CAPABILITIES);
      handle(client, asked);
      await client.connect(transport(new URL(replay.url)));
      const replayed = await exercise(client);
      await rootsAsked(asked);
      await client.close();

      expect(replayed.results).toEqual(live.results);
      expect(replayed.results.echo).toMatchObject({ content: [{ type: 'text', text: 'Echo: over HTTP ✓' }] });
      expect(replayed.progress).toEqual(
        Array.from({ length: STEPS }, (_, i) => ({ progress: i + 1, total: STEPS })),
      );
      expect(asked.sort()).toEqual(['roots/list', 'sampling/createMessage']);

      const { code, stderr } = await replay.stop();
      replay = undefined;
      expect(stderr).toContain(`tapedeck: replayed ${exchanges}/${exchanges} exchanges\n`);
      expect(stderr).not.toMatch(/miss|unused|timeout|dropped|refused/);
      expect(code).toBe(0);
    },
  );

  it('answers a changed argument with a JSON-RPC error naming the request and the closest recording, and exits 1', async () => {
    replay = await startHttpReplay(cassette, ['--allow-unused']);
    const client = new Client({ name: 'x', version: '1' }, CAPABILITIES);
    handle(client, []);
    await client.connect(new StreamableHTTPClientTransport(new URL(replay.url)));
    const miss = await outcome(() => client.callTool({ name: 'echo', arguments: { message: 'changed' } }));
    await client.close();
    const expected =
      'no recorded answer for tools/call echo {"message":"changed"}; closest: tools/call echo {"message":"over HTTP ✓"} (differs at $.params.arguments.message: recorded "over HTTP ✓", live "changed")';
    expect(miss).toEqual({ error: `MCP error -32090: ${expected}` });
    const { code, stderr } = await replay.stop('SIGINT');
    replay = undefined;
    expect(stderr).toContain(`tapedeck: miss: ${expected}\n`);
    expect(stderr).toMatch(/tapedeck: replayed 1\/\d+ exchanges, 1 miss\n/);
    expect(code).toBe(1);
  });
});
