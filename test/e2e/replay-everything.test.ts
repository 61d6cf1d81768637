/**
 * Record a real session (the official SDK client ↔ server-everything through `tapedeck record`), then serve it
 * with `tapedeck replay` to a fresh SDK client: same results, progress, the client's own sampling, elicitation and
 * roots handlers asked as they were live — and no server process anywhere.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  type CreateMessageResult,
  ElicitRequestSchema,
  type ElicitResult,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectClient,
  everythingServer,
  makeTempDir,
  readTrace,
  recorded,
  removeTempDir,
  rpc,
  traceParts,
} from '../helpers/peers.js';
import { childPids, connectSession, outcome, pipeReplay, replayCommand, request } from '../helpers/replay.js';

const STEPS = 5;
const STATIC_DOC = 'demo://resource/static/document/instructions.md';
const CAPABILITIES = {
  capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } },
};
const SAMPLE: CreateMessageResult = {
  model: 'canned-model',
  role: 'assistant',
  content: { type: 'text', text: 'A canned answer from the test client.' },
  stopReason: 'endTurn',
};
const ELICITED: ElicitResult = {
  action: 'accept',
  content: { name: 'Alice', check: true, email: 'a@example.com', integer: 3, number: 3.5, enum: 'A' },
};

/** The client's side of server→client requests: canned answers, every request kept. */
function handlers(asked: { method: string; params: unknown }[]) {
  return (client: Client) => {
    client.setRequestHandler(CreateMessageRequestSchema, async (r) => {
      asked.push({ method: r.method, params: r.params });
      return SAMPLE;
    });
    client.setRequestHandler(ElicitRequestSchema, async (r) => {
      asked.push({ method: r.method, params: r.params });
      return ELICITED;
    });
    client.setRequestHandler(ListRootsRequestSchema, async (r) => {
      asked.push({ method: r.method, params: r.params ?? null });
      return { roots: [{ uri: 'file:///work/project', name: 'project' }] };
    });
  };
}

/** One session's calls, in order; everything returned must be the same live and replayed. */
async function exercise(client: Client) {
  const progress: { progress: number; total?: number | undefined }[] = [];
  const results = {
    server: {
      version: client.getServerVersion(),
      capabilities: client.getServerCapabilities(),
      instructions: client.getInstructions(),
    },
    tools: await outcome(() => client.listTools()),
    echo: await outcome(() => client.callTool({ name: 'echo', arguments: { message: 'hello, replay ✓' } })),
    sum: await outcome(() => client.callTool({ name: 'get-sum', arguments: { a: 19, b: 23 } })),
    longRunning: await outcome(() =>
      client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 0.25, steps: STEPS } },
        undefined,
        { onprogress: (p) => progress.push({ progress: p.progress, total: p.total }) },
      ),
    ),
    sampling: await outcome(() =>
      client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'Say hi', maxTokens: 25 } }),
    ),
    elicitation: await outcome(() => client.callTool({ name: 'trigger-elicitation-request', arguments: {} })),
    resources: await outcome(() => client.listResources()),
    resource: await outcome(() => client.readResource({ uri: STATIC_DOC })),
    prompts: await outcome(() => client.listPrompts()),
    prompt: await outcome(() =>
      client.getPrompt({ name: 'args-prompt', arguments: { city: 'Lisbon', state: 'PT' } }),
    ),
    setLevel: await outcome(() => client.setLoggingLevel('debug')),
  };
  return { results, progress };
}

describe('tapedeck replay serves a recorded server-everything session to a fresh SDK client', () => {
  let tmp: string | undefined;
  let cassette: string;
  let exchanges: number;
  const liveAsked: { method: string; params: unknown }[] = [];
  const replayAsked: { method: string; params: unknown }[] = [];
  let live: Awaited<ReturnType<typeof exercise>>;
  let replayed: Awaited<ReturnType<typeof exercise>>;
  let children: number[];
  let exit: Awaited<ReturnType<Awaited<ReturnType<typeof connectSession>>['finish']>>;

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-replay-');
    cassette = join(tmp, 'everything.jsonl');
    const recording = await connectClient(
      recorded(everythingServer(), { file: cassette }),
      CAPABILITIES,
      handlers(liveAsked),
    );
    try {
      live = await exercise(recording.client);
      // server-everything asks for roots ~350 ms after init; let that land in the recording too.
      const until = Date.now() + 3000;
      while (!liveAsked.some((a) => a.method === 'roots/list') && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      await recording.client.close();
    }
    exchanges = traceParts(readTrace(cassette))
      .in.map(rpc)
      .filter((m) => m.method !== undefined && m.id !== undefined).length;

    // A different client build: another version, and one extra call first so every request id is shifted.
    const session = await connectSession(replayCommand(cassette), CAPABILITIES, handlers(replayAsked), {
      name: 'a-fresh-client',
      version: '9.9.9',
    });
    await session.client.ping();
    replayed = await exercise(session.client);
    children = childPids(session.transport.pid!);
    exit = await session.finish();
  });

  afterAll(() => removeTempDir(tmp));

  it('gives the client the results it got live', () => {
    expect(live.results.echo).toMatchObject({ content: [{ type: 'text', text: 'Echo: hello, replay ✓' }] });
    expect(JSON.stringify(live.results.sampling)).toContain(SAMPLE.model);
    expect(JSON.stringify(live.results.elicitation)).toContain('Alice');
    expect(live.results.resource).toMatchObject({ contents: [{ uri: STATIC_DOC }] });
    expect(replayed.results).toEqual(live.results);
  });

  it('delivers the recorded progress to the client’s onprogress', () => {
    // The SDK client may drop the last callback when it shares a read with the response (DESIGN §7).
    for (const { progress } of [live, replayed]) {
      expect(progress.length).toBeGreaterThanOrEqual(STEPS - 1);
      expect(progress).toEqual(
        Array.from({ length: progress.length }, (_, i) => ({ progress: i + 1, total: STEPS })),
      );
    }
  });

  it('asks the client’s own sampling, elicitation and roots handlers, as the server did', () => {
    expect(liveAsked.map((a) => a.method).sort()).toEqual([
      'elicitation/create',
      'roots/list',
      'sampling/createMessage',
    ]);
    const byMethod = (asked: typeof liveAsked) => Object.fromEntries(asked.map((a) => [a.method, a.params]));
    expect(byMethod(replayAsked)).toEqual(byMethod(liveAsked));
    expect(replayAsked).toHaveLength(liveAsked.length);
  });

  it('runs no server, uses every exchange and exits 0', () => {
    expect(children).toEqual([]);
    expect(exit.stderr).toContain(`tapedeck: replayed ${exchanges}/${exchanges} exchanges\n`);
    expect(exit.stderr).not.toMatch(/miss|unused|timeout|note/);
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
  });

  it('answers a changed argument with a miss naming both requests, and exits 1', async () => {
    const session = await connectSession(replayCommand(cassette), CAPABILITIES, handlers([]));
    const miss = await outcome(() =>
      session.client.callTool({ name: 'get-sum', arguments: { a: 19, b: 24 } }),
    );
    const { code, stderr } = await session.finish();
    const expected =
      'no recorded answer for tools/call get-sum {"a":19,"b":24}; closest: tools/call get-sum {"a":19,"b":23} (differs at $.params.arguments.b: recorded 23, live 24)';
    expect(miss).toEqual({ error: `MCP error -32090: ${expected}` });
    expect(stderr).toContain(`tapedeck: miss: ${expected}\n`);
    expect(stderr).toContain(`tapedeck: replayed 1/${exchanges} exchanges, 1 miss\n`);
    expect(code).toBe(1);
  });

  it('fails on unused exchanges, unless --allow-unused', async () => {
    const calls = [
      request(1, 'initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '0' },
      }),
      request(2, 'tools/call', { name: 'echo', arguments: { message: 'hello, replay ✓' } }),
    ];
    const strict = await pipeReplay(cassette, [], calls);
    const lenient = await pipeReplay(cassette, ['--allow-unused'], calls);
    for (const run of [strict, lenient]) {
      expect(run.messages.map((m) => rpc(m).id)).toEqual([1, 2]);
      expect(run.stderr).toContain(`tapedeck: replayed 2/${exchanges} exchanges\n`);
      expect(run.stderr).toMatch(/^tapedeck: unused #1: tools\/list \(line \d+\)$/m);
    }
    expect(strict.stderr).toContain('unused exchanges fail the run; pass --allow-unused to accept them');
    expect(strict.code).toBe(1);
    expect(lenient.stderr).not.toContain('fail the run');
    expect(lenient.code).toBe(0);
  });
});
