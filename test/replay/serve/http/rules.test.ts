/**
 * The HTTP front door's rules, in process (serveHttp on a free port, raw requests): DNS-rebinding protection,
 * sessions as the SDK's Streamable HTTP server keeps them, JSON answers for clients that accept nothing else,
 * batches only where the protocol version has them, legacy SSE's endpoint event — and the CLI's bad input.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Cassette, type HttpReplayServer, serveHttp } from '../../../../src/live/replay-entry.js';
import { buildCassette } from '../../../../src/replay/cassette/cassette.js';
import { listenUrl, parseListenAddress, servedPath } from '../../../../src/replay/serve/http/options.js';
import type { Json, TraceLine } from '../../../../src/trace/types.js';
import { useCliHarness } from '../../../helpers/cli.js';
import { rawRequest, sseEvents } from './helpers.js';

const io = useCliHarness('tapedeck-replay-http-');

/** A small legacy-era recording: initialize at `version`, then tools/list twice and echo. */
async function cassette(version = '2025-11-25'): Promise<Cassette> {
  let seq = 0;
  const t = () => new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString();
  const line = (dir: 'in' | 'out', raw: Json): TraceLine => ({ t: t(), seq: seq++, dir, raw });
  const init = { protocolVersion: version, capabilities: {}, clientInfo: { name: 'c', version: '1' } };
  return buildCassette([
    { v: 1, type: 'meta', startedAt: t(), label: 'rules' },
    line('in', { jsonrpc: '2.0', id: 0, method: 'initialize', params: init }),
    line('out', {
      jsonrpc: '2.0',
      id: 0,
      result: {
        protocolVersion: version,
        capabilities: { tools: {} },
        serverInfo: { name: 's', version: '1' },
      },
    }),
    line('in', { jsonrpc: '2.0', method: 'notifications/initialized' }),
    line('in', { jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    line('out', { jsonrpc: '2.0', id: 1, result: { tools: [] } }),
    line('in', {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { m: 'x' } },
    }),
    line('out', { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Echo: x' }] } }),
  ]);
}

const JSON_AND_SSE = 'application/json, text/event-stream';

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return rawRequest(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, ...headers },
    body: JSON.stringify(body),
  });
}

const initialize = (version = '2025-11-25') => ({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

describe('the HTTP front door', () => {
  let server: HttpReplayServer | undefined;

  afterEach(async () => {
    server?.stop();
    await server?.done;
    server = undefined;
  });

  it('refuses a Host or Origin that is not local with 403, unless allowed', async () => {
    const rejected: string[] = [];
    server = await serveHttp(await cassette(), {
      allowHosts: ['mcp.test'],
      onEvent: (event) => {
        if (event.kind === 'rejected') rejected.push(`${event.status} ${event.reason}`);
      },
    });
    const port = new URL(server.url).port;
    const spoofed = await post(server.url, initialize(), { host: `evil.example:${port}` });
    expect(spoofed.status).toBe(403);
    expect(JSON.parse(spoofed.body)).toMatchObject({ error: { code: -32000 }, id: null });
    const origin = await post(server.url, initialize(), { origin: 'http://evil.example' });
    expect(origin.status).toBe(403);
    expect(rejected).toEqual([
      `403 Forbidden: Host 'evil.example:${port}' is not allowed: this server answers only localhost, 127.0.0.1 and [::1] (pass --allow-host evil.example to accept it)`,
      `403 Forbidden: Origin 'http://evil.example' is not this server's own origin (http://127.0.0.1:${port}): pages of other sites, and of other local ports, may not use it (pass --allow-host evil.example to accept it)`,
    ]);
    const allowed = await post(server.url, initialize(), {
      host: `mcp.test:${port}`,
      origin: 'http://mcp.test',
    });
    expect(allowed.status).toBe(200);
    const local = await post(server.url, initialize(), {
      host: `localhost:${port}`,
      origin: `http://localhost:${port}`,
    });
    expect(local.status).toBe(200);
  });

  it('keeps sessions as the SDK server does: 400 without a session id, 404 for an unknown one, 409 for a second GET', async () => {
    server = await serveHttp(await cassette());
    const init = await post(server.url, initialize());
    expect(init.status).toBe(200);
    expect(init.headers['content-type']).toBe('text/event-stream');
    const id = init.headers['mcp-session-id'] as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const events = sseEvents(init.body);
    expect(events).toMatchObject([
      { id: 'p1:1', event: 'message', data: { id: 0, result: { serverInfo: { name: 's' } } } },
    ]);

    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    expect((await post(server.url, list)).status).toBe(400);
    expect((await post(server.url, list, { 'mcp-session-id': 'no-such-session' })).status).toBe(404);
    expect((await post(server.url, initialize(), { 'mcp-session-id': id })).status).toBe(400);
    const note = await post(
      server.url,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-session-id': id },
    );
    expect(note.status).toBe(202);

    const stream = await rawRequest(server.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': id },
      until: () => true,
      hold: true,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream');
    const second = await rawRequest(server.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': id },
    });
    expect(second.status).toBe(409);
    stream.close();

    // A client that accepts only JSON gets JSON.
    const json = await post(server.url, list, { 'mcp-session-id': id, accept: 'application/json' });
    expect(json.headers['content-type']).toBe('application/json');
    expect(JSON.parse(json.body)).toEqual({ jsonrpc: '2.0', id: 1, result: { tools: [] } });

    const deleted = await rawRequest(server.url, { method: 'DELETE', headers: { 'mcp-session-id': id } });
    expect(deleted.status).toBe(200);
    expect((await post(server.url, list, { 'mcp-session-id': id })).status).toBe(404);
    server.stop();
    const { report, sessions } = await server.done;
    expect(sessions).toBe(1);
    expect(report.used).toBe(2);
  });

  it('takes batches only where the protocol version has them', async () => {
    for (const [version, status] of [
      ['2025-03-26', 200],
      ['2025-11-25', 400],
    ] as const) {
      server = await serveHttp(await cassette(version));
      const init = await post(server.url, initialize(version), { accept: 'application/json' });
      const id = init.headers['mcp-session-id'] as string;
      const batch = [
        { jsonrpc: '2.0', id: 'x', method: 'tools/list' },
        { jsonrpc: '2.0', id: 'y', method: 'tools/call', params: { name: 'echo', arguments: { m: 'x' } } },
      ];
      const answer = await post(server.url, batch, { 'mcp-session-id': id, accept: 'application/json' });
      expect(answer.status).toBe(status);
      if (status === 200)
        expect(JSON.parse(answer.body)).toMatchObject([
          { id: 'x', result: { tools: [] } },
          { id: 'y', result: { content: [{ text: 'Echo: x' }] } },
        ]);
      else expect(JSON.parse(answer.body)).toMatchObject({ error: { code: -32600 } });
      server.stop();
      await server.done;
      server = undefined;
    }
  });

  it('speaks legacy SSE: the endpoint event, 202 for POSTs, answers on the stream', async () => {
    server = await serveHttp(await cassette('2024-11-05'), { transport: 'sse' });
    expect(new URL(server.url).pathname).toBe('/sse');
    let body = '';
    const opened = rawRequest(server.url, {
      headers: { accept: 'text/event-stream' },
      until: (text) => {
        body = text;
        return text.includes('"id":0');
      },
    });
    const until = Date.now() + 5000;
    while (!body.includes('event: endpoint') && Date.now() < until)
      await new Promise((r) => setTimeout(r, 10));
    const endpoint = sseEvents(body)[0];
    expect(endpoint).toMatchObject({
      event: 'endpoint',
      data: expect.stringMatching(/^\/message\?sessionId=[0-9a-f-]{36}$/),
    });
    const accepted = await post(new URL(endpoint!.data as string, server.url).href, initialize('2024-11-05'));
    expect(accepted.status).toBe(202);
    await opened;
    expect(sseEvents(body)[1]).toMatchObject({
      event: 'message',
      id: undefined,
      data: { id: 0, result: { protocolVersion: '2024-11-05' } },
    });
  });
});

describe('listen addresses and paths', () => {
  it('read HOST:PORT, IPv6 in brackets, and name the recorded path when the transport matches', () => {
    expect(parseListenAddress('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(listenUrl('::1', 8080, '/mcp')).toBe('http://[::1]:8080/mcp');
    const recorded = { url: 'http://127.0.0.1:3001/api/mcp?x=1', transport: 'http' };
    expect(servedPath(recorded, 'streamable')).toBe('/api/mcp');
    expect(servedPath(recorded, 'sse')).toBe('/sse');
    expect(servedPath({ transport: 'stdio' }, 'streamable')).toBe('/mcp');
  });
});

describe('tapedeck replay --http: bad input', () => {
  it.each([
    [
      ['--http', 'localhost'],
      "--http must be HOST:PORT such as 127.0.0.1:8080 (port 0 picks a free one); got 'localhost'",
    ],
    [['--http', '127.0.0.1:70000'], "--http port must be 0 to 65535; got '70000' in '127.0.0.1:70000'"],
    [['--sse'], '--sse needs --http HOST:PORT (legacy SSE is an HTTP transport)'],
    [['--allow-host', 'mcp.test'], '--allow-host needs --http HOST:PORT'],
  ])('%j → one usage line, exit 2', async (flags, message) => {
    const path = join(io.dir, 'c.jsonl');
    writeFileSync(path, '');
    expect(await io.run(['replay', path, ...flags])).toBe(2);
    expect(io.stderr).toBe(`tapedeck: ${message}\n`);
  });
});
