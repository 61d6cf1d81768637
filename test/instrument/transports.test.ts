import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CreateMessageRequestSchema, CreateMessageResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRecorder, httpMiddleware, type Recorder } from '../../src/instrument/index.js';
import { loadTrace } from '../../src/trace/io.js';
import type { MessageLine } from '../../src/trace/types.js';
import { REPO_ROOT } from '../helpers/peers.js';
import { eventsOf, memoryEvents } from './helpers.js';

const STDIO_FIXTURE = join(REPO_ROOT, 'test', 'instrument', 'fixtures', 'instrumented-stdio.mjs');

/** A server made per HTTP session, as Streamable HTTP and SSE deployments do; every one joins the same recorder. */
function buildServer(recorder: Recorder): McpServer {
  const server = new McpServer({ name: 'http-demo', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: 'text', text: `Echo: ${message}` }],
  }));
  server.registerTool('think', {}, async (extra) => {
    const progressToken = extra._meta?.progressToken;
    if (progressToken !== undefined) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress: 1, total: 2 },
      });
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress: 2, total: 2 },
      });
    }
    const answer = await extra.sendRequest(
      {
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: 'think' } }], maxTokens: 4 },
      },
      CreateMessageResultSchema,
    );
    return { content: [{ type: 'text', text: `thought: ${JSON.stringify(answer.content)}` }] };
  });
  return recorder.instrument(server);
}

function samplingClient(): Client {
  const client = new Client({ name: 'http-probe', version: '5.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    model: 'canned',
    role: 'assistant',
    content: { type: 'text', text: 'ok' },
  }));
  return client;
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ http: HttpServer; url: string }> {
  const http = createServer(handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { http, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` };
}

let cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function stopHttp(http: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    http.close(() => resolve());
    http.closeAllConnections();
  });
}

describe('instrument over real transports', () => {
  it('Streamable HTTP: a server per session, HTTP facts from the middleware or from the SDK, progress and sampling attributed', async () => {
    const kept = memoryEvents();
    const recorder = createRecorder({ to: { type: 'sink', sink: kept.sink }, flushInterval: 60_000 });
    const transports = new Map<string, StreamableHTTPServerTransport>();
    const middleware = httpMiddleware();
    const handle = async (req: IncomingMessage, res: ServerResponse) => {
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (transport === undefined) {
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id: string): void => {
            transports.set(id, created);
          },
        });
        transport = created;
        await buildServer(recorder).connect(created);
      }
      await transport.handleRequest(req, res);
    };
    const { http, url } = await listen((req, res) => {
      // /mcp goes through the middleware; /plain relies on what the SDK hands over (extra.requestInfo).
      if (req.url?.startsWith('/mcp')) middleware(req, res, () => void handle(req, res));
      else void handle(req, res);
    });
    cleanup.push(() => stopHttp(http));
    cleanup.push(() => Promise.all([...transports.values()].map((t) => t.close())));

    const token = 'http-bearer-token-1';
    const viaMiddleware = samplingClient();
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}`, 'x-trace-me': 'yes' } },
    });
    await viaMiddleware.connect(transport);
    cleanup.push(() => viaMiddleware.close());
    const progress: number[] = [];
    await viaMiddleware.callTool({ name: 'echo', arguments: { message: 'over http' } });
    await viaMiddleware.callTool({ name: 'think', arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });

    const plain = new Client({ name: 'plain-probe', version: '1.0.0' });
    await plain.connect(new StreamableHTTPClientTransport(new URL(`${url}/plain`)));
    cleanup.push(() => plain.close());
    await plain.callTool({ name: 'echo', arguments: { message: 'no middleware' } });
    await recorder.flush();

    expect(progress).toEqual([1, 2]);
    const [echo, noMiddleware] = eventsOf(kept.events, 'tools/call', 'echo');
    expect(echo).toMatchObject({
      outcome: 'ok',
      transport: 'http',
      client: { name: 'http-probe', version: '5.0.0' },
    });
    expect(echo?.server).toEqual({ name: 'http-demo', version: '1.0.0' });
    expect(echo?.transportSessionId).toBe(transport.sessionId);
    expect(echo?.identity).toMatchObject({ kind: 'token' });
    expect(echo?.http).toMatchObject({ method: 'POST', url: `${url}/mcp`, peerAddress: '127.0.0.1' });
    expect(echo?.http?.headers).toMatchObject({
      authorization: '[REDACTED:authorization-header]',
      'x-trace-me': 'yes',
    });
    expect(JSON.stringify(kept.events)).not.toContain(token);

    const [think] = eventsOf(kept.events, 'tools/call', 'think');
    expect(think?.related).toMatchObject({ progress: 2, requests: 1 });
    expect(think?.outcome).toBe('ok');

    expect(noMiddleware?.http?.url).toBe(`${url}/plain`);
    expect(noMiddleware?.http?.headers?.['mcp-session-id']).toBeDefined();
    expect(noMiddleware?.http?.peerAddress).toBeUndefined();
    expect(noMiddleware?.client).toEqual({ name: 'plain-probe', version: '1.0.0' });
    expect(noMiddleware?.sessionId).not.toBe(echo?.sessionId);
  });

  it('legacy SSE: requests arrive on POSTs, answers go out on the event stream', async () => {
    const kept = memoryEvents();
    const recorder = createRecorder({ to: { type: 'sink', sink: kept.sink }, flushInterval: 60_000 });
    const transports = new Map<string, SSEServerTransport>();
    const middleware = httpMiddleware();
    const { http, url } = await listen((req, res) =>
      middleware(req, res, async () => {
        if (req.method === 'GET' && req.url === '/sse') {
          const transport = new SSEServerTransport('/messages', res);
          transports.set(transport.sessionId, transport);
          await buildServer(recorder).connect(transport);
          return;
        }
        const sid = new URL(req.url ?? '/', 'http://x').searchParams.get('sessionId') ?? '';
        await transports.get(sid)?.handlePostMessage(req, res);
      }),
    );
    cleanup.push(() => stopHttp(http));
    const client = samplingClient();
    await client.connect(new SSEClientTransport(new URL(`${url}/sse`)));
    cleanup.push(() => client.close());
    await client.callTool({ name: 'echo', arguments: { message: 'over sse' } });
    await client.callTool({ name: 'think', arguments: {} }, undefined, { onprogress: () => {} });
    await recorder.flush();

    const [echo] = eventsOf(kept.events, 'tools/call', 'echo');
    expect(echo).toMatchObject({ outcome: 'ok', transport: 'sse', client: { name: 'http-probe' } });
    expect(echo?.http?.peerAddress).toBe('127.0.0.1');
    expect(echo?.transportSessionId).toBe([...transports.keys()][0]);
    expect(eventsOf(kept.events, 'tools/call', 'think')[0]?.related).toMatchObject({
      progress: 2,
      requests: 1,
    });
  });

  it('stdio: a server process instrumented into a trace file, ended on shutdown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapedeck-instrument-stdio-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    expect(existsSync(join(REPO_ROOT, 'dist', 'instrument', 'index.js'))).toBe(true);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [STDIO_FIXTURE, dir],
      cwd: REPO_ROOT,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-probe', version: '1.0.0' });
    await client.connect(transport);
    const result = await client.callTool({ name: 'echo', arguments: { message: 'over stdio' } }, undefined, {
      onprogress: () => {},
    });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: over stdio' }]);
    await client.close();

    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    const trace = await loadTrace(join(dir, files[0]!));
    expect(trace.meta).toMatchObject({ transport: 'stdio', server: 'stdio-fixture', release: 'fixture-1' });
    expect(trace.meta.session).toMatchObject({
      identity: { kind: 'process' },
      client: { name: 'stdio-probe' },
    });
    const messages = trace.entries.map((e) => e.line).filter((l): l is MessageLine => l.type === undefined);
    expect(messages.map((m) => `${m.dir} ${(m.raw as { method?: string }).method ?? 'answer'}`)).toEqual([
      'in initialize',
      'out answer',
      'in tools/call',
      'out answer',
    ]);
    expect(trace.entries.at(-1)?.line).toMatchObject({ type: 'end', reason: 'producer_shutdown' });
  });
});
