/**
 * Every tapedeck listener — the collector (HTTP and its websocket), `tapedeck view`, `replay --http`,
 * `mcp --http` and the `record --upstream` proxy — answered as an attacker on this machine would try it: a page on
 * another local origin (`http://localhost:8080`) and a request with two `Host` headers. A local name is not enough
 * for `Origin`: it must be the listener's own origin (scheme, host and port), or a name the user allowed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Collector, startCollector } from '../src/collector/index.js';
import { serveMcpHttp } from '../src/mcp/http.js';
import { createTrajectoryService } from '../src/mcp/server.js';
import { startHttpProxy } from '../src/proxy/http/server.js';
import { buildCassette } from '../src/replay/cassette/cassette.js';
import { serveHttp } from '../src/replay/serve/http/server.js';
import { MemorySink } from '../src/sink/memory.js';
import { newMeta } from '../src/trace/meta.js';
import { startViewServer } from '../src/view/server.js';

/** One HTTP/1.1 request written by hand (so headers can repeat); resolves to the status and the raw answer. */
function rawHttp(port: number, head: string[], body = ''): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `${[...head, 'Connection: close', `Content-Length: ${Buffer.byteLength(body)}`].join('\r\n')}\r\n\r\n${body}`,
      );
    });
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
      // Event streams stay open: the status line is all these tests need.
      if (/^HTTP\/1\.1 \d{3}/.test(text) && text.includes('\r\n\r\n')) socket.destroy();
    });
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
    socket.on('error', reject);
  });
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

interface Listener {
  name: string;
  port: number;
  /** The request line and headers besides Host / Origin, and a body. */
  request: { line: string; headers: string[]; body?: string };
  close(): Promise<void>;
}

const dir = mkdtempSync(join(tmpdir(), 'tapedeck-guards-'));
const listeners: Listener[] = [];

beforeAll(async () => {
  const collector: Collector = await startCollector({
    dbPath: join(dir, 'db', 'tapedeck.db'),
    token: 'ab'.repeat(32),
    port: 0,
    viewerDir: join(dir, 'no-viewer'),
  });
  listeners.push({
    name: 'collector',
    port: collector.port,
    request: { line: 'GET /api/v1/traces HTTP/1.1', headers: [] },
    close: () => collector.close(),
  });
  mkdirSync(join(dir, 'viewer'));
  writeFileSync(join(dir, 'viewer', 'index.html'), '<!doctype html><html><head></head><body></body></html>');
  const view = await startViewServer({ files: [], dir: join(dir, 'viewer'), token: 'f'.repeat(32) });
  listeners.push({
    name: 'tapedeck view',
    port: view.port,
    request: { line: `GET /${'f'.repeat(32)}/api/files HTTP/1.1`, headers: [] },
    close: () => view.close(),
  });
  const cassette = await buildCassette([
    { v: 1, type: 'meta', startedAt: '2026-01-01T00:00:00.000Z', label: 'g' },
  ]);
  const replay = await serveHttp(cassette, { port: 0 });
  const post = {
    line: 'POST /mcp HTTP/1.1',
    headers: ['Content-Type: application/json', 'Accept: application/json, text/event-stream'],
    body: INIT,
  };
  listeners.push({
    name: 'replay --http',
    port: replay.port,
    request: post,
    close: async () => {
      replay.stop();
      await replay.done;
    },
  });
  const mcp = await serveMcpHttp(createTrajectoryService({ dataDir: join(dir, 'mcp'), log: () => {} }), {
    host: '127.0.0.1',
    port: 0,
  });
  listeners.push({
    name: 'mcp --http',
    port: Number(new URL(mcp.url).port),
    request: post,
    close: mcp.close,
  });
  const sink = new MemorySink();
  sink.start(newMeta({ label: 'guards', transport: 'http' }));
  // The upstream is never reached by these requests; a refused one must not get that far.
  const proxy = await startHttpProxy({ upstream: new URL('http://127.0.0.1:9/mcp'), sink, port: 0 });
  listeners.push({
    name: 'record --upstream',
    port: proxy.port,
    request: post,
    close: () => proxy.close(0),
  });
});

afterAll(async () => {
  for (const listener of listeners) await listener.close();
  rmSync(dir, { recursive: true, force: true });
});

const send = (l: Listener, host: string[], origin?: string) =>
  rawHttp(
    l.port,
    [
      l.request.line,
      ...host.map((h) => `Host: ${h}`),
      ...(origin ? [`Origin: ${origin}`] : []),
      ...l.request.headers,
    ],
    l.request.body,
  );

describe.each(['collector', 'tapedeck view', 'replay --http', 'mcp --http', 'record --upstream'])(
  'the %s listener',
  (name) => {
    const listener = () => listeners.find((l) => l.name === name)!;

    it('answers 403 to a page on another local origin, and not to its own origin', async () => {
      const l = listener();
      const self = `127.0.0.1:${l.port}`;
      expect((await send(l, [self], 'http://localhost:8080')).status).toBe(403);
      expect((await send(l, [self], `http://127.0.0.1:${l.port + 1}`)).status).toBe(403);
      expect((await send(l, [self], `https://127.0.0.1:${l.port}`)).status).toBe(403);
      const own = await send(l, [self], `http://${self}`);
      expect(own.status).not.toBe(403);
      expect(own.status).not.toBe(400);
    });

    it('answers 400 to a request with two Host headers', async () => {
      const l = listener();
      const answer = await send(l, [`127.0.0.1:${l.port}`, 'evil.example']);
      expect(answer.status).toBe(400);
      expect(answer.text).toContain('Host');
      const again = await send(l, [`127.0.0.1:${l.port}`, `127.0.0.1:${l.port}`]);
      expect(again.status).toBe(400);
    });
  },
);
