/**
 * The 2026-07-28 era through the recording proxy, with the real v2 client and server (`@modelcontextprotocol/client`
 * and `server` 2.4.0; the server's web-standard handler behind node:http): no session, every request self-describing
 * with `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`, and errors as 4xx with a JSON-RPC body.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectExchanges } from '../../../src/trace/pairing.js';
import type { TraceLine } from '../../../src/trace/types.js';
import { startEraEchoServer } from '../../helpers/era2026.js';
import { httpOf, messagesOf, type RecordingProxy, startRecording } from '../../helpers/http-proxy.js';

const ERA = '2026-07-28';

async function session(url: string) {
  const client = new Client(
    { name: 'era-proxy-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: ERA } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const tools = (await client.listTools()).tools.map((t) => t.name);
  const echo = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  const unknown = await client.callTool({ name: 'nope', arguments: {} }).then(
    (result) => ({ result }),
    (err: Error) => ({ error: err.message }),
  );
  await client.close();
  return { tools, echo, unknown };
}

describe('2026-07-28 era: v2 client → recording proxy → v2 server', () => {
  let close: () => Promise<void>;
  let serverUrl: string;
  let recording: RecordingProxy | undefined;
  let direct: Awaited<ReturnType<typeof session>>;
  let proxied: Awaited<ReturnType<typeof session>>;
  let lines: TraceLine[];

  beforeAll(async () => {
    const server = await startEraEchoServer('era-proxy-fixture');
    const url = server.url;
    serverUrl = url;
    close = server.close;
    recording = await startRecording(url);
    direct = await session(url);
    proxied = await session(recording.proxy.url);
    await recording.stop();
    lines = recording.sink.lines;
  });

  afterAll(async () => {
    await recording?.stop();
    await close?.();
  });

  it('gives the client the same answers as a direct connection', () => {
    expect(proxied).toEqual(direct);
    expect(proxied.tools).toEqual(['echo']);
  });

  it('records the era’s headers, no session, and every request answered', () => {
    const posts = httpOf(lines).filter((h) => h.dir === 'in' && h.method === 'POST');
    expect(posts.map((h) => h.headers['mcp-method'])).toEqual(
      expect.arrayContaining(['server/discover', 'tools/list', 'tools/call']),
    );
    const call = posts.find((h) => h.headers['mcp-name'] === 'echo')!;
    expect(call.headers['mcp-protocol-version']).toBe(ERA);
    expect(httpOf(lines).some((h) => h.headers['mcp-session-id'] !== undefined)).toBe(false);
    // Without sessions, each exchange is its own connection.
    for (const m of messagesOf(lines)) expect(m.conn).toBe(m.stream);
    const { unanswered, orphans } = collectExchanges(lines);
    expect(unanswered).toEqual([]);
    expect(orphans).toEqual([]);
  });

  it('records a refused request with its 4xx status and its JSON-RPC error, and a GET with its 405', async () => {
    const live = await startRecording(serverUrl);
    try {
      // The header names one tool, the body another: the server refuses to route it.
      const res = await fetch(live.proxy.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': ERA,
          'mcp-method': 'tools/call',
          'mcp-name': 'other',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: {
            name: 'echo',
            arguments: { text: 'x' },
            _meta: { 'io.modelcontextprotocol/protocolVersion': ERA },
          },
        }),
      });
      const body = (await res.json()) as { error: { message: string } };
      const get = await fetch(live.proxy.url, {
        headers: { accept: 'text/event-stream', 'mcp-protocol-version': ERA },
      });
      await get.arrayBuffer();
      expect(res.status).toBe(400);
      const http = httpOf(live.sink.lines).filter((h) => h.dir === 'out');
      expect(http.map((h) => h.status)).toEqual([400, get.status]);
      expect(get.status).toBe(405);
      const answer = messagesOf(live.sink.lines).find((m) => m.dir === 'out')!;
      expect(answer.raw).toMatchObject({ id: 7, error: { message: body.error.message } });
      expect(answer.stream).toBe(http[0]!.stream);
    } finally {
      await live.stop();
    }
  });
});
