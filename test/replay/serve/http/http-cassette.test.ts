/**
 * A cassette recorded from an HTTP server holds several MCP sessions (`conn`), each numbering its ids from 0, with
 * `stream` / `eventId` on message lines and `http` envelope lines. It replays over stdio (one session, the other
 * one's exchanges unused) and over HTTP to two concurrent SDK clients: each live session gets the recorded session
 * whose initialize it matched, identical requests are served in recorded order across sessions, a server→client
 * request reaches the client that asked, and DELETE ends one session without touching the other.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../../../../src/trace/types.js';
import { makeTempDir, removeTempDir } from '../../../helpers/peers.js';
import { connectSession, replayCommand } from '../../../helpers/replay.js';
import { type HttpReplayProcess, rawRequest, startHttpReplay } from './helpers.js';

const SAMPLE = { model: 'm', role: 'assistant', content: { type: 'text', text: 'sampled' } } as const;
const ECHO_TOOL = {
  name: 'echo',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
};
const EXTRA_TOOL = { name: 'extra', inputSchema: { type: 'object', properties: {} } };

/** Two sessions of one HTTP server, interleaved as they happened, ids colliding across them. */
function httpCassette(): string {
  let seq = 0;
  const at = () => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, seq * 5)).toISOString();
  const lines: Record<string, Json>[] = [
    {
      v: 1,
      type: 'meta',
      startedAt: at(),
      label: 'two-sessions',
      transport: 'http',
      url: 'http://127.0.0.1:3001/api/mcp',
    },
  ];
  const message = (dir: 'in' | 'out', raw: Json, conn: string, stream: string, eventId?: string) => {
    lines.push({ t: at(), seq: seq++, dir, raw, conn, stream, ...(eventId ? { eventId } : {}) });
  };
  const envelope = (conn: string, stream: string, status: number) =>
    lines.push({
      t: at(),
      seq: seq++,
      type: 'http',
      conn,
      stream,
      dir: 'out',
      status,
      headers: { 'content-type': 'text/event-stream', 'mcp-session-id': conn },
    });
  const init = (conn: string, name: string) => {
    const stream = `post-${conn}-init`;
    message('in', { jsonrpc: '2.0', id: 0, method: 'initialize', params: initParams(name) }, conn, stream);
    envelope(conn, stream, 200);
    const serverInfo = { name: `server for ${conn}`, version: '1.0.0' };
    const result = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo };
    message('out', { jsonrpc: '2.0', id: 0, result }, conn, stream, `${conn}-1`);
  };
  init('A', 'client-a');
  init('B', 'client-b');
  message('in', { jsonrpc: '2.0', method: 'notifications/initialized' }, 'A', 'post-A-2');
  message('in', { jsonrpc: '2.0', method: 'notifications/initialized' }, 'B', 'post-B-2');
  const call = (id: number, text: string, token?: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'echo',
      arguments: { message: text },
      ...(token === undefined ? {} : { _meta: { progressToken: token } }),
    },
  });
  message('in', call(1, 'from A', 1), 'A', 'post-A-3');
  message('in', call(1, 'from B'), 'B', 'post-B-3');
  message(
    'out',
    { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1, total: 2 } },
    'A',
    'post-A-3',
    'A-2',
  );
  const sampling = { messages: [{ role: 'user', content: { type: 'text', text: 'B asks' } }], maxTokens: 10 };
  message(
    'out',
    { jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: sampling },
    'B',
    'post-B-3',
    'B-2',
  );
  message(
    'out',
    { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 2, total: 2 } },
    'A',
    'post-A-3',
    'A-3',
  );
  message(
    'out',
    { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'Echo: from A' }] } },
    'A',
    'post-A-3',
    'A-4',
  );
  message('in', { jsonrpc: '2.0', id: 0, result: SAMPLE }, 'B', 'post-B-4');
  message(
    'out',
    { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'Echo: from B' }] } },
    'B',
    'post-B-3',
    'B-3',
  );
  message('in', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, 'A', 'post-A-5');
  message('out', { jsonrpc: '2.0', id: 2, result: { tools: [ECHO_TOOL] } }, 'A', 'post-A-5', 'A-5');
  message('in', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, 'B', 'post-B-5');
  message(
    'out',
    { jsonrpc: '2.0', id: 2, result: { tools: [ECHO_TOOL, EXTRA_TOOL] } },
    'B',
    'post-B-5',
    'B-4',
  );
  lines.push({ t: at(), type: 'end', durationMs: seq * 5, reason: 'producer_shutdown', counts: {} });
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}

function initParams(name: string): Record<string, Json> {
  return {
    protocolVersion: '2025-11-25',
    capabilities: { sampling: {} },
    clientInfo: { name, version: '1' },
  };
}

function samplingClient(asked: unknown[]): Client {
  const client = new Client({ name: 'live', version: '2' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    asked.push(request.params.messages);
    return SAMPLE;
  });
  return client;
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text;

describe('an HTTP recording of two sessions', () => {
  let tmp: string | undefined;
  let cassette: string;
  let replay: HttpReplayProcess | undefined;

  beforeAll(async () => {
    tmp = await makeTempDir('tapedeck-replay-http-conns-');
    cassette = join(tmp, 'two-sessions.jsonl');
    writeFileSync(cassette, httpCassette());
  });

  afterEach(async () => {
    await replay?.stop('SIGKILL');
    replay = undefined;
  });

  afterAll(() => removeTempDir(tmp));

  it('replays over stdio: one session plays both recorded ones in order; the rest is reported unused', async () => {
    const asked: unknown[] = [];
    const session = await connectSession(
      replayCommand(cassette, ['--allow-unused']),
      {
        capabilities: { sampling: {} },
      },
      (client) => {
        client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
          asked.push(request.params.messages);
          return SAMPLE;
        });
      },
    );
    const { client } = session;
    expect(client.getServerVersion()).toEqual({ name: 'server for A', version: '1.0.0' });
    const progress: number[] = [];
    const a = await client.callTool({ name: 'echo', arguments: { message: 'from A' } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    const b = await client.callTool({ name: 'echo', arguments: { message: 'from B' } });
    const tools = await client.listTools();
    const { code, stderr } = await session.finish();
    expect([text(a), text(b)]).toEqual(['Echo: from A', 'Echo: from B']);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(asked).toEqual([[{ role: 'user', content: { type: 'text', text: 'B asks' } }]]);
    expect(tools.tools.map((t) => t.name)).toEqual(['echo']);
    expect(stderr).toContain('tapedeck: replayed 4/6 exchanges\n');
    expect(stderr).toContain('tapedeck: unused #1: initialize');
    expect(code).toBe(0);
  });

  it('replays over HTTP to two concurrent sessions, each with its own recorded session; DELETE ends one', async () => {
    replay = await startHttpReplay(cassette);
    const url = new URL(replay.url);
    // The path the cassette was recorded on.
    expect(url.pathname).toBe('/api/mcp');
    const asked: { a: unknown[]; b: unknown[] } = { a: [], b: [] };
    const first = samplingClient(asked.a);
    const second = samplingClient(asked.b);
    const firstTransport = new StreamableHTTPClientTransport(url);
    const secondTransport = new StreamableHTTPClientTransport(url);
    await first.connect(firstTransport);
    await second.connect(secondTransport);
    expect(first.getServerVersion()?.name).toBe('server for A');
    expect(second.getServerVersion()?.name).toBe('server for B');
    expect(firstTransport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(secondTransport.sessionId).not.toBe(firstTransport.sessionId);

    const progress: number[] = [];
    const [a, b] = await Promise.all([
      first.callTool({ name: 'echo', arguments: { message: 'from A' } }, undefined, {
        onprogress: (p) => progress.push(p.progress),
      }),
      second.callTool({ name: 'echo', arguments: { message: 'from B' } }),
    ]);
    expect([text(a), text(b)]).toEqual(['Echo: from A', 'Echo: from B']);
    expect(progress).toEqual([1, 2]);
    // The server→client request of B's exchange went to the client that made that call, and to no other.
    expect(asked).toEqual({ a: [], b: [[{ role: 'user', content: { type: 'text', text: 'B asks' } }]] });

    // Identical requests from different sessions: the recorded order decides, not the session.
    expect((await second.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    expect((await first.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'extra']);

    const ended = secondTransport.sessionId!;
    await secondTransport.terminateSession();
    const after = await rawRequest(replay.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': ended,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }),
    });
    expect(after.status).toBe(404);
    expect(JSON.parse(after.body)).toMatchObject({ error: { code: -32001, message: 'Session not found' } });
    await expect(first.ping()).resolves.toEqual({});
    await first.close();
    await second.close();

    const { code, stderr } = await replay.stop();
    replay = undefined;
    expect(stderr).toContain('tapedeck: replayed 6/6 exchanges\n');
    expect(code).toBe(0);
  });
});
