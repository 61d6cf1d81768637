/**
 * The stdio ↔ HTTP bridge between real peers: the SDK 1.32 stdio Client and the MCP Inspector CLI on one side,
 * server-everything over Streamable HTTP (and legacy SSE) on the other. The bridge runs as `record --upstream URL
 * --stdio` does, recording the session.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/main.js';
import { collectExchanges } from '../../../src/trace/pairing.js';
import type { HttpLine, TraceLine } from '../../../src/trace/types.js';
import { memoryIo } from '../../helpers/cli.js';
import { bridged, type HttpServer, startEverything } from '../../helpers/http-peers.js';
import {
  makeTempDir,
  readTrace,
  removeTempDir,
  responsesByRequest,
  rpc,
  runInspector,
  traceParts,
} from '../../helpers/peers.js';

const TOKEN = 'tok-bridge-4f9a1c2e7d';

let dir: string;
let streamable: HttpServer;

beforeAll(async () => {
  dir = await makeTempDir('tapedeck-bridge-');
  streamable = await startEverything('streamableHttp');
});

afterAll(async () => {
  await streamable?.stop();
  await removeTempDir(dir);
});

/** An SDK client on the bridge (the token comes from the environment, through `${TOKEN}` in --header). */
async function session(url: string, trace: string, extra: string[] = []) {
  const target = bridged(url, trace, ['--header', `Authorization: Bearer \${BRIDGE_TOKEN}`, ...extra]);
  const transport = new StdioClientTransport({
    command: target.command,
    args: target.args,
    env: { PATH: process.env.PATH ?? '', BRIDGE_TOKEN: TOKEN },
    stderr: 'pipe',
  });
  const sampled: unknown[] = [];
  const client = new Client({ name: 'bridge-e2e', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    sampled.push(request.params);
    return { model: 'canned-model', role: 'assistant', content: { type: 'text', text: 'canned answer' } };
  });
  await client.connect(transport);
  let progress = 0;
  const tools = await client.listTools();
  const echo = await client.callTool({ name: 'echo', arguments: { message: 'over the bridge' } });
  const long = await client.callTool(
    { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 3 } },
    undefined,
    { onprogress: () => progress++ },
  );
  const sampling = await client.callTool({
    name: 'trigger-sampling-request',
    arguments: { prompt: 'Say hi', maxTokens: 5 },
  });
  await client.close();
  return { tools, echo, long, sampling, sampled, progress };
}

function envelopes(lines: TraceLine[]): HttpLine[] {
  return lines.filter((line): line is HttpLine => line.type === 'http');
}

describe('the bridge with the SDK stdio client and server-everything over Streamable HTTP', () => {
  let result: Awaited<ReturnType<typeof session>>;
  let lines: TraceLine[];

  beforeAll(async () => {
    const trace = join(dir, 'streamable.jsonl');
    result = await session(streamable.url, trace);
    lines = readTrace(trace);
  }, 30_000);

  it('carries requests, progress and the server’s own sampling request both ways', () => {
    expect(result.tools.tools.map((tool) => tool.name)).toContain('echo');
    expect(result.echo.content).toEqual([{ type: 'text', text: 'Echo: over the bridge' }]);
    expect(JSON.stringify(result.long.content)).toContain('Steps: 3');
    // The SDK's stdio reader may drop the last progress notification that shares a chunk with the response.
    expect(result.progress).toBeGreaterThanOrEqual(2);
    expect(result.sampled).toHaveLength(1);
    expect(JSON.stringify(result.sampling.content)).toContain('canned answer');
  });

  it('records every request with its response, on the session as conn', () => {
    const { meta, end, messages } = traceParts(lines);
    expect(meta).toMatchObject({ transport: 'http', url: streamable.url });
    expect(end).toMatchObject({ reason: 'process_exit', exitCode: 0 });
    const session = messages.find((m) => m.dir === 'out')?.conn;
    // The session id is kept as a stable hash.
    expect(session).toMatch(/^\[REDACTED:mcp-session-id:[0-9a-f]{12}\]$/);
    expect(messages.every((m) => m.conn === session)).toBe(true);
    for (const [request, responses] of responsesByRequest(messages, 'in')) {
      expect(responses, JSON.stringify(request.raw)).toHaveLength(1);
    }
    const asks = [...responsesByRequest(messages, 'out')];
    expect(asks.map(([request]) => rpc(request.raw).method)).toEqual(['sampling/createMessage']);
    expect(asks[0]![1]).toHaveLength(1);
    // The trace's own pairing finds the same exchanges, and the sampling request inside its tools/call.
    const paired = collectExchanges(lines);
    const call = paired.exchanges.find((x) => x.request.params?.name === 'trigger-sampling-request');
    expect(call?.children.some((child) => child.kind === 'exchange')).toBe(true);
    expect(paired.unanswered).toEqual([]);
    expect(paired.orphans).toEqual([]);
  });

  it('records the HTTP envelopes, with SSE event ids, and never the bearer token', () => {
    const http = envelopes(lines);
    const methods = http.filter((line) => line.dir === 'in').map((line) => line.method);
    expect(methods).toContain('POST');
    expect(methods).toContain('GET');
    expect(methods.at(-1)).toBe('DELETE');
    expect(http.find((line) => line.method === 'POST')?.headers.authorization).toMatch(/REDACTED/);
    const posted = http.filter((line) => line.dir === 'in' && line.method === 'POST').slice(1);
    expect(posted.every((line) => line.headers['mcp-protocol-version'] === '2025-11-25')).toBe(true);
    expect(traceParts(lines).messages.some((m) => m.dir === 'out' && typeof m.eventId === 'string')).toBe(
      true,
    );
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
  });
});

describe('the bridge in legacy SSE mode', () => {
  it('runs the same session against server-everything sse', async () => {
    const sse = await startEverything('sse');
    try {
      const trace = join(dir, 'sse.jsonl');
      const result = await session(sse.url, trace, ['--sse']);
      expect(result.echo.content).toEqual([{ type: 'text', text: 'Echo: over the bridge' }]);
      expect(result.sampled).toHaveLength(1);
      const lines = readTrace(trace);
      const { meta, messages } = traceParts(lines);
      expect(meta).toMatchObject({ transport: 'sse', url: sse.url });
      for (const [request, responses] of responsesByRequest(messages, 'in')) {
        expect(responses, JSON.stringify(request.raw)).toHaveLength(1);
      }
      expect(envelopes(lines)[0]).toMatchObject({ dir: 'in', method: 'GET', stream: 'sse' });
      expect(JSON.stringify(lines)).not.toContain(TOKEN);
    } finally {
      await sse.stop();
    }
  }, 30_000);
});

describe('the bridge with the MCP Inspector CLI', () => {
  it('answers tools/call through the bridge and records it', async () => {
    const trace = join(dir, 'inspector.jsonl');
    const target = bridged(streamable.url, trace);
    const result = await runInspector(target, [
      '--method',
      'tools/call',
      '--tool-name',
      'echo',
      '--tool-arg',
      'message=hi',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ content: [{ type: 'text', text: 'Echo: hi' }] });
    const { messages, end } = traceParts(readTrace(trace));
    expect(messages.map((m) => rpc(m.raw).method).filter(Boolean)).toEqual(
      expect.arrayContaining(['initialize', 'notifications/initialized', 'tools/call']),
    );
    expect(end.exitCode).toBe(0);
  }, 30_000);
});

describe('the bridge with a client that writes several requests at once', () => {
  it('records them out of file order, and show prints the session in time order', async () => {
    const trace = join(dir, 'pipelined.jsonl');
    const target = bridged(streamable.url, trace);
    const child = spawn(target.command, target.args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const init = {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'pipelined', version: '1.0.0' },
    };
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: init },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'ping' },
    ];
    let answered = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      answered += chunk
        .toString('utf8')
        .split('\n')
        .filter((text) => text.includes('"id"')).length;
      if (answered >= 3) child.stdin.end();
    });
    // All at once, as one write: the bridge stamps each when it reads it, and sends them one after the other.
    child.stdin.write(requests.map((request) => `${JSON.stringify(request)}\n`).join(''));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);

    const lines = readTrace(trace);
    const times = lines.flatMap((line) =>
      't' in line && typeof line.t === 'string' ? [Date.parse(line.t)] : [],
    );
    // What the recorder wrote is not in time order (the reason show sorts) …
    expect(times).not.toEqual([...times].sort((a, b) => a - b));

    const io = memoryIo({ env: { NO_COLOR: '1', COLUMNS: '200' } });
    expect(await run(['show', trace], io)).toBe(0);
    const offsets = io.stdout.text
      .split('\n')
      .flatMap((row) => /^\s+\+(\d+\.\d+)s /.exec(row)?.[1] ?? [])
      .map(Number);
    // … what show prints is: every request before the answers that came after it was sent.
    expect(offsets.length).toBeGreaterThan(8);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    const rows = io.stdout.text.split('\n');
    const sent = rows.findIndex((row) => row.includes('→ ping #3'));
    const firstAnswer = rows.findIndex((row) => row.includes('← initialize #1'));
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(firstAnswer);
  }, 30_000);
});
