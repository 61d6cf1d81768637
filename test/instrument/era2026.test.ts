/**
 * `instrument()` on a 2026-07-28-era server (the real v2 `McpServer` and client, `@modelcontextprotocol/server` and
 * `client`; the server's web-standard handler behind node:http): requests name no session, so the recorder keys
 * them per client and says the era.
 */

import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/collector/open-store.js';
import { traceSummary } from '../../src/collector/queries.js';
import { createRecorder, type InstrumentableServer } from '../../src/instrument/index.js';
import { linesOf, metaOf } from '../../src/instrument/sinks/lines.js';
import { push } from '../collector/store/engines.js';
import { scratchDir } from '../helpers/scratch.js';
import { memoryEvents } from './helpers.js';

const ERA = '2026-07-28';

let cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function startServer(instrument: (server: InstrumentableServer) => void): Promise<string> {
  const handler = createMcpHandler(() => {
    const server = new McpServer(
      { name: 'era-instrumented', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    server.registerTool(
      'echo',
      {
        description: 'Echo text back',
        inputSchema: fromJsonSchema({
          type: 'object',
          properties: { text: { type: 'string' } },
          required: ['text'],
        }),
      },
      async (args) => ({ content: [{ type: 'text', text: `echo: ${(args as { text: string }).text}` }] }),
    );
    instrument(server as unknown as InstrumentableServer);
    return server;
  });
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers))
      if (typeof value === 'string') headers.set(key, value);
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const response = await handler.fetch(
      new Request(`http://127.0.0.1${req.url}`, { method: req.method!, headers, ...(body ? { body } : {}) }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanup.push(async () => {
    await handler.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

async function talk(url: string, name: string): Promise<void> {
  const client = new Client({ name, version: '2.0.0' }, { versionNegotiation: { mode: { pin: ERA } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { text: name } });
  await client.close();
}

describe('instrument() in the 2026-07-28 era: v2 client → instrumented v2 server', () => {
  it('groups each client’s stateless requests into one session, marked stateless, and none shares another’s', async () => {
    const kept = memoryEvents();
    const recorder = createRecorder({ to: { type: 'sink', sink: kept.sink }, flushInterval: 60_000 });
    cleanup.push(() => recorder.shutdown());
    const url = await startServer((server) => recorder.instrument(server));
    await talk(url, 'first-client');
    await talk(url, 'second-client');
    await talk(url, 'first-client');
    await recorder.flush();

    const calls = kept.events.filter((event) => event.method === 'tools/call');
    expect(calls).toHaveLength(3);
    for (const event of kept.events) {
      expect(event.sessionEra).toBe('stateless');
      expect(event.transportSessionId).toBeUndefined();
      expect(event.protocolVersion).toBe(ERA);
    }
    const sessionsOf = (name: string) =>
      new Set(kept.events.filter((event) => event.client?.name === name).map((event) => event.sessionId));
    const first = sessionsOf('first-client');
    const second = sessionsOf('second-client');
    // Within the idle time, one client is one session however many HTTP requests it made.
    expect(first.size).toBe(1);
    expect(second.size).toBe(1);
    expect([...first][0]).not.toBe([...second][0]);
    expect(
      kept.events.filter((event) => event.client?.name === 'first-client').length,
    ).toBeGreaterThanOrEqual(4);
    // The trace of a session says its era, and the collector lists the session with it.
    const session = kept.events.filter((event) => event.sessionId === calls[0]!.sessionId);
    const meta = metaOf(session[0]!);
    expect(meta.session).toMatchObject({ era: 'stateless', id: calls[0]!.sessionId });
    const dir = scratchDir('tapedeck-era-');
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const store = openSqliteStore(join(dir, 'c.db'));
    cleanup.push(() => store.close());
    const row = await store.create({ format: 'tapedeck', state: 'uploading' });
    const lines = session
      .flatMap((event) => linesOf(event))
      .map((line, i) => JSON.stringify({ ...line, seq: i + 1 }));
    await push(store, row, `${JSON.stringify(meta)}\n${lines.join('\n')}\n`);
    const listed = await traceSummary(store, (await store.get(row.id))!);
    expect(listed.session).toMatchObject({
      id: calls[0]!.sessionId,
      era: 'stateless',
      client: { name: 'first-client' },
    });
  });
});
