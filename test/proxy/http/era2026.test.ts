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
import {
  eventsOf,
  httpOf,
  messagesOf,
  type RecordingProxy,
  startRecording,
} from '../../helpers/http-proxy.js';

const ERA = '2026-07-28';

async function session(url: string, name = 'era-proxy-test') {
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: ERA } } });
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
  let other: Awaited<ReturnType<typeof session>>;
  let again: Awaited<ReturnType<typeof session>>;

  beforeAll(async () => {
    const server = await startEraEchoServer('era-proxy-fixture');
    const url = server.url;
    serverUrl = url;
    close = server.close;
    recording = await startRecording(url);
    direct = await session(url);
    proxied = await session(recording.proxy.url);
    // A second client, told apart by its client info: a session of its own.
    other = await session(recording.proxy.url, 'era-proxy-other');
    // The first client again, a new Client object (its request ids start over): the same session, still paired.
    again = await session(recording.proxy.url);
    await recording.stop();
    lines = recording.sink.lines;
  });

  afterAll(async () => {
    await recording?.stop();
    await close?.();
  });

  it('gives the client the same answers as a direct connection', () => {
    expect(proxied).toEqual(direct);
    expect(other).toEqual(direct);
    expect(again).toEqual(direct);
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
    const { unanswered, orphans } = collectExchanges(lines);
    expect(unanswered).toEqual([]);
    expect(orphans).toEqual([]);
  });

  it('files each client’s stateless requests under one session key of its own, and says the era', () => {
    const sessions = eventsOf(lines, 'session');
    expect(sessions).toHaveLength(2);
    for (const [i, name] of ['era-proxy-test', 'era-proxy-other'].entries()) {
      expect(sessions[i]).toMatchObject({
        era: 'stateless',
        minted: true,
        protocolVersion: ERA,
        client: { name, version: '1.0.0' },
      });
    }
    const [first, second] = sessions.map((event) => (event as unknown as { sessionId: string }).sessionId);
    expect(first).not.toBe(second);
    const messages = messagesOf(lines);
    const byClient = (name: string) =>
      new Set(
        messages
          .filter((m) => m.dir === 'in')
          .filter((m) => JSON.stringify(m.raw).includes(`"name":"${name}"`))
          .map((m) => m.conn),
      );
    expect([...byClient('era-proxy-test')]).toEqual([first]);
    expect([...byClient('era-proxy-other')]).toEqual([second]);
    // Every message, answers too, is filed under one of the two; the stream still names the exchange.
    expect(new Set(messages.map((m) => m.conn))).toEqual(new Set([first, second]));
    for (const m of messages) expect(m.stream).toMatch(/^h\d+$/);
  });

  it('keeps exchanges paired with their sessions keyed', () => {
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
