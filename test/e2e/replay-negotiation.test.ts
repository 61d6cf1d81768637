/**
 * Replay takes part in the handshake as the live server would. A session recorded with SDK 1.32's client (protocol
 * 2025-11-25, roots and sampling declared) against server-everything through `tapedeck record` is replayed to:
 * SDK 1.10's client (it speaks only 2024-11-05 and refuses any other answer) over stdio and over Streamable HTTP,
 * and SDK 1.32 clients with and without the roots capability. Each gets the version it asked for and the recorded
 * answers; none is asked what it did not declare it can answer, and its calls still get their recorded results.
 */
import { join } from 'node:path';
import type { Client as Client132 } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  type CreateMessageResult,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Client as Client110 } from '@modelcontextprotocol/sdk-1.10/client/index.js';
import { StdioClientTransport as Stdio110 } from '@modelcontextprotocol/sdk-1.10/client/stdio.js';
import { StreamableHTTPClientTransport as Http110 } from '@modelcontextprotocol/sdk-1.10/client/streamableHttp.js';
import type { Transport as Transport110 } from '@modelcontextprotocol/sdk-1.10/shared/transport.js';
import type { JSONRPCMessage as Message110 } from '@modelcontextprotocol/sdk-1.10/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, everythingServer, makeTempDir, recorded, removeTempDir } from '../helpers/peers.js';
import { connectSession, outcome, replayCommand } from '../helpers/replay.js';
import { type HttpReplayProcess, startHttpReplay } from '../replay/serve/http/helpers.js';

const SAMPLE: CreateMessageResult = {
  model: 'canned-model',
  role: 'assistant',
  content: { type: 'text', text: 'A canned answer from the recording client.' },
  stopReason: 'endTurn',
};
const ROOTS = { roots: [{ uri: 'file:///work/project', name: 'project' }] };
const ECHO = { name: 'echo', arguments: { message: 'negotiated ✓' } };
const SAMPLING = { name: 'trigger-sampling-request', arguments: { prompt: 'Say hi', maxTokens: 25 } };

/** What a client gets from the calls every session makes. */
async function calls(client: {
  listTools(): Promise<unknown>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
}) {
  const tools = await outcome(() => client.listTools());
  return {
    tools:
      'tools' in (tools as object)
        ? (tools as { tools: { name: string }[] }).tools.map((t) => t.name)
        : tools,
    echo: await outcome(() => client.callTool(ECHO)),
    sampling: await outcome(() => client.callTool(SAMPLING)),
  };
}

/** The part of a 1.10 transport the tap drives. */
interface Inner {
  start(): Promise<void>;
  send(message: Message110): Promise<void>;
  close(): Promise<void>;
  onmessage?: ((message: Message110) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onclose?: (() => void) | undefined;
}

/** A 1.10 transport with what the client received kept, and the replay process's stderr once it started. */
class Tapped implements Transport110 {
  readonly received: Message110[] = [];
  stderr = '';
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: Message110) => void;

  constructor(
    private readonly inner: Inner,
    private readonly stderrOf: () => NodeJS.EventEmitter | null = () => null,
  ) {}

  async start(): Promise<void> {
    this.inner.onmessage = (message) => {
      this.received.push(message);
      this.onmessage?.(message);
    };
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.onclose?.();
    await this.inner.start();
    this.stderrOf()?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
  }

  send(message: Message110): Promise<void> {
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** The protocol version the `initialize` answer named. */
  version(): unknown {
    const answer = this.received.find((m) => 'result' in m && 'protocolVersion' in (m.result as object));
    return answer && 'result' in answer
      ? (answer.result as { protocolVersion?: unknown }).protocolVersion
      : undefined;
  }
}

/** A 1.10 client that declares nothing, and keeps every request the server sends it. */
function client110(asked: string[]): Client110 {
  const client = new Client110({ name: 'sdk-1.10-client', version: '1.10.2' }, { capabilities: {} });
  client.fallbackRequestHandler = async (request) => {
    asked.push(request.method);
    throw new Error(`not declared: ${request.method}`);
  };
  return client;
}

/** Handlers a 1.32 client offers; every request kept, as is whatever it did not declare. */
function handlers132(asked: string[], roots: boolean) {
  return (client: Client132) => {
    client.setRequestHandler(CreateMessageRequestSchema, async (r) => {
      asked.push(r.method);
      return SAMPLE;
    });
    if (roots)
      client.setRequestHandler(ListRootsRequestSchema, async (r) => {
        asked.push(r.method);
        return ROOTS;
      });
    client.fallbackRequestHandler = async (request) => {
      asked.push(request.method);
      throw new Error(`not declared: ${request.method}`);
    };
  };
}

/** Waits (bounded) for `asked` to hold `method`: server-everything asks roots ~350 ms after the handshake. */
async function askedFor(asked: string[], method: string, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!asked.includes(method) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}

const VERSION_NOTE =
  'the client asked for protocol version 2024-11-05 and the recording answered 2025-11-25: answered 2024-11-05';
const ROOTS_NOTE =
  'the client did not declare the roots capability: the recorded roots/list is not sent to it';
const SAMPLING_NOTE = 'the client did not declare the sampling capability';

describe('replay of an SDK 1.32 recording to older and less capable clients', () => {
  let tmp: string | undefined;
  let cassette: string;
  let live: Awaited<ReturnType<typeof calls>>;

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-negotiation-');
    cassette = join(tmp, 'everything.jsonl');
    const asked: string[] = [];
    const { client } = await connectClient(
      recorded(everythingServer(), { file: cassette }),
      { capabilities: { sampling: {}, roots: { listChanged: true } } },
      handlers132(asked, true),
    );
    await askedFor(asked, 'roots/list');
    expect(asked).toContain('roots/list');
    live = await calls(client);
    await client.close();
    expect(live.sampling).toMatchObject({ content: [{ type: 'text' }] });
  });

  afterAll(() => removeTempDir(tmp));

  it('answers SDK 1.10 over stdio with 2024-11-05 and the recorded results; it is asked nothing', async () => {
    const asked: string[] = [];
    const { command, args } = replayCommand(cassette, ['--allow-unused']);
    const stdio = new Stdio110({ command, args, stderr: 'pipe' });
    const transport = new Tapped(stdio, () => stdio.stderr);
    const client = client110(asked);
    await client.connect(transport);
    expect(transport.version()).toBe('2024-11-05');
    expect(client.getServerVersion()).toMatchObject({ name: 'mcp-servers/everything' });
    // roots/list came 350 ms after the handshake in the recording: give it the time to (not) come.
    await askedFor(asked, 'roots/list', 800);
    const got = await calls(client);
    await client.close();
    expect(got).toEqual(live);
    expect(asked).toEqual([]);
    await expect.poll(() => transport.stderr).toContain('replayed 4/4 exchanges');
    expect(transport.stderr).toContain(VERSION_NOTE);
    expect(transport.stderr.split(ROOTS_NOTE)).toHaveLength(2);
    expect(transport.stderr.split(SAMPLING_NOTE)).toHaveLength(2);
  });

  it('answers SDK 1.10 over Streamable HTTP the same way, in a session of its own', async () => {
    const server: HttpReplayProcess = await startHttpReplay(cassette, ['--allow-unused']);
    try {
      const asked: string[] = [];
      const transport = new Tapped(new Http110(new URL(server.url)));
      const client = client110(asked);
      await client.connect(transport);
      expect(transport.version()).toBe('2024-11-05');
      await askedFor(asked, 'roots/list', 800);
      const got = await calls(client);
      await client.close();
      expect(got).toEqual(live);
      expect(asked).toEqual([]);
    } finally {
      const { stderr } = await server.stop();
      expect(stderr).toContain(VERSION_NOTE);
      expect(stderr).toContain(ROOTS_NOTE);
    }
  });

  it('answers SDK 1.32 without roots with its own version; roots/list is not sent, sampling is', async () => {
    const asked: string[] = [];
    const session = await connectSession(
      replayCommand(cassette),
      { capabilities: { sampling: {} } },
      handlers132(asked, false),
    );
    await askedFor(asked, 'roots/list', 800);
    const got = await calls(session.client);
    const exit = await session.finish();
    expect(got).toEqual(live);
    expect(asked).toEqual(['sampling/createMessage']);
    expect(exit.code).toBe(0);
    expect(exit.stderr).toContain(ROOTS_NOTE);
    expect(exit.stderr).not.toContain('protocol version');
  });

  it('asks SDK 1.32 with roots for them, as recorded', async () => {
    const asked: string[] = [];
    const session = await connectSession(
      replayCommand(cassette),
      { capabilities: { sampling: {}, roots: { listChanged: true } } },
      handlers132(asked, true),
    );
    await askedFor(asked, 'roots/list');
    const got = await calls(session.client);
    const exit = await session.finish();
    expect(got).toEqual(live);
    expect(asked).toEqual(['roots/list', 'sampling/createMessage']);
    expect(exit.code).toBe(0);
    expect(exit.stderr).not.toContain('did not declare');
  });
});
