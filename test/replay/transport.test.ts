/**
 * replayTransport and recordTransport in-process, with the official SDK's Client, McpServer and linked
 * InMemoryTransports: no processes, no ports.
 */
import { statSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CreateMessageRequestSchema, CreateMessageResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TapedeckError } from '../../src/errors.js';
import { buildCassette } from '../../src/replay/cassette/cassette.js';
import { REPLAY_ERROR_CODES } from '../../src/replay/engine/codes.js';
import { recordTransport, replayTransport } from '../../src/replay/transport.js';
import { MemorySink } from '../../src/sink/memory.js';
import { loadTrace } from '../../src/trace/io.js';
import type { JsonObject } from '../../src/trace/jsonrpc.js';
import type { MessageLine, TraceLine } from '../../src/trace/types.js';
import { fixtureCassette, INTEROP } from './helpers.js';

const EVERYTHING = 'mcp-tape/everything-stdio.jsonl';

/** A small real server: echo, a tool with progress, a tool that asks the client to sample. */
function makeServer(): McpServer {
  const server = new McpServer({ name: 'in-process', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: 'text', text: `echo: ${message}` }],
  }));
  server.registerTool('count', { inputSchema: { to: z.number() } }, async ({ to }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= to; i++) {
      if (token !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: to },
        });
    }
    return { content: [{ type: 'text', text: `counted to ${to}` }] };
  });
  server.registerTool('ask', { inputSchema: { question: z.string() } }, async ({ question }, extra) => {
    const answer = await extra.sendRequest(
      {
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: question } }], maxTokens: 10 },
      },
      CreateMessageResultSchema,
    );
    return { content: [{ type: 'text', text: `the model said: ${JSON.stringify(answer.content)}` }] };
  });
  return server;
}

function makeClient(version = '1.0.0'): { client: Client; sampled: string[] } {
  const client = new Client({ name: 'in-process-client', version }, { capabilities: { sampling: {} } });
  const sampled: string[] = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const content = request.params.messages[0]?.content;
    sampled.push(content && 'text' in content ? String(content.text) : '');
    return { model: 'canned', role: 'assistant', content: { type: 'text', text: 'forty-two' } };
  });
  return { client, sampled };
}

/** The calls both the live and the replayed session make. */
async function session(client: Client) {
  const progress: number[] = [];
  return {
    tools: (await client.listTools()).tools.map((t) => t.name),
    echo: await client.callTool({ name: 'echo', arguments: { message: 'hi' } }),
    count: await client.callTool({ name: 'count', arguments: { to: 3 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    }),
    ask: await client.callTool({ name: 'ask', arguments: { question: 'meaning of life?' } }),
    progress,
  };
}

describe('replayTransport', () => {
  it('is a Transport the SDK Client connects to; the cassette answers, progress and sampling included', async () => {
    const cassette = await fixtureCassette(EVERYTHING);
    const transport = replayTransport(cassette);
    const sdkView: Transport = transport;
    expect(sdkView.sessionId).toBeUndefined();
    const { client, sampled } = makeClient('7.0.0');
    await client.connect(transport);
    expect(client.getServerVersion()).toMatchObject({ name: 'mcp-servers/everything' });
    const progress: number[] = [];
    const long = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 2, steps: 4 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    );
    const sampling = await client.callTool({
      name: 'trigger-sampling-request',
      arguments: { prompt: 'hi', maxTokens: 20 },
    });
    // In-process every message arrives on its own turn, so the SDK sees all progress, the last one included.
    expect(progress).toEqual([1, 2, 3, 4]);
    expect(long.content).toEqual([
      { type: 'text', text: 'Long running operation completed. Duration: 2 seconds, Steps: 4.' },
    ]);
    expect(sampled).toEqual(['Resource trigger-sampling-request context: hi']);
    expect(JSON.stringify(sampling)).toContain('canned sampling reply');
    await transport.idle();
    const report = transport.report();
    expect(report.used).toBe(3);
    expect(report.unused.map((u) => u.method)).toContain('tools/list');
    expect(report.answers.map((a) => a.method)).toEqual(['roots/list', 'sampling/createMessage']);
    await client.close();
  });

  it('answers a request it has no recording of with an error naming the closest one', async () => {
    const { client } = makeClient();
    await client.connect(replayTransport(await fixtureCassette(EVERYTHING)));
    const failure = await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 9 } }).catch((e) => e);
    expect(failure).toMatchObject({ code: REPLAY_ERROR_CODES.miss });
    expect(String(failure.message)).toContain(
      'no recorded answer for tools/call get-sum {"a":1,"b":9}; closest: tools/call get-sum {"a":1,"b":2}',
    );
    await client.close();
  });

  it('reads a cassette path when the client connects', async () => {
    const transport = replayTransport(`${INTEROP}mcporter/everything-get-sum.ndjson`, {
      server: 'everything',
    });
    expect(() => transport.report()).toThrow(TapedeckError);
    const { client } = makeClient();
    await client.connect(transport);
    const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
    expect(sum.content).toEqual([{ type: 'text', text: 'The sum of 2 and 3 is 5.' }]);
    expect(transport.report().summary).toMatch(/^used 2 of 3 recorded exchanges; unused: #1 tools\/list/);
    await client.close();
    await expect(transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' })).rejects.toThrow(/closed/);
  });

  it('fails connect with one clear line when the cassette does not exist', async () => {
    const { client } = makeClient();
    await expect(client.connect(replayTransport('/nonexistent/cassette.jsonl'))).rejects.toThrow(
      'no such cassette: /nonexistent/cassette.jsonl',
    );
  });
});

describe('recordTransport', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tapedeck-transport-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('records a live in-memory session that then replays to a fresh client with the same results', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const sink = new MemorySink();
    const recording = recordTransport(clientSide, { sink, server: 'in-process' });
    const server = makeServer();
    await server.connect(serverSide);
    const live = makeClient();
    await live.client.connect(recording);
    const liveResults = await session(live.client);
    await live.client.close();
    await recording.closed;
    await server.close();

    expect(sink.lines[0]).toMatchObject({ type: 'meta', transport: 'memory', server: 'in-process' });
    expect(sink.lines.at(-1)).toMatchObject({ type: 'end', reason: 'producer_shutdown' });
    const cassette = await buildCassette(sink.lines);
    const ask = cassette.exchanges.find((x) => x.request.params?.name === 'ask');
    // The sampling request sits in the script of the call that asked (its relatedRequestId got through).
    expect(ask?.script.map((s) => s.method)).toEqual(['sampling/createMessage']);

    const replay = replayTransport(cassette);
    const fresh = makeClient('2.0.0');
    await fresh.client.connect(replay);
    const replayed = await session(fresh.client);
    expect(replayed).toEqual(liveResults);
    expect(liveResults.progress).toEqual([1, 2, 3]);
    expect(fresh.sampled).toEqual(['meaning of life?']);
    expect(replay.report()).toMatchObject({ used: 5, total: 5, misses: [] });
    expect(replay.report().answers).toMatchObject([{ method: 'sampling/createMessage', differs: false }]);
    await fresh.client.close();
  });

  it('writes a private trace file that tapedeck reads back, secrets redacted by default', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const file = join(dir, 'nested', 'session.jsonl');
    const recording = recordTransport(clientSide, { file, label: 'unit' });
    const server = makeServer();
    await server.connect(serverSide);
    const { client } = makeClient();
    await client.connect(recording);
    const echoed = await client.callTool({
      name: 'echo',
      arguments: { message: 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c' },
    });
    await client.close();
    await recording.closed;
    await server.close();

    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The client got the real value; only the trace copy is redacted.
    expect(JSON.stringify(echoed)).toContain('sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c');
    const trace = await loadTrace(file);
    expect(trace.meta).toMatchObject({ label: 'unit', transport: 'memory', producer: { name: 'tapedeck' } });
    const messages = trace.entries
      .map((e) => e.line)
      .filter((l): l is MessageLine => 'dir' in l && 'raw' in l);
    expect(messages.map((m) => `${m.dir} ${(m.raw as JsonObject).method ?? 'response'}`)).toEqual([
      'in initialize',
      'out response',
      'in notifications/initialized',
      'in tools/call',
      'out response',
    ]);
    expect(JSON.stringify(trace.entries)).not.toContain('sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c');
  });

  it("applies the project's redaction rules as tapedeck record does, and replay matches a request they hid", async () => {
    const secret = 'ACME-12345678';
    const rules = join(dir, 'acme-redact.json');
    await writeFile(
      rules,
      JSON.stringify({ rules: [{ type: 'regex', id: 'acme', pattern: 'ACME-[0-9]{8}' }] }),
    );
    const file = join(dir, 'acme.jsonl');
    const saved = process.env.TAPEDECK_REDACT;
    // The default setup reads $TAPEDECK_REDACT, like the user and project redact.json.
    process.env.TAPEDECK_REDACT = rules;
    try {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const recording = recordTransport(clientSide, { file, label: 'acme' });
      const server = makeServer();
      await server.connect(serverSide);
      const { client } = makeClient();
      await client.connect(recording);
      await client.callTool({ name: 'echo', arguments: { message: `key ${secret}` } });
      await client.close();
      await recording.closed;
      await server.close();

      const text = await readFile(file, 'utf8');
      expect(text).not.toContain(secret);
      expect(text).toContain('[REDACTED:acme]');
      expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({
        redaction: { defaults: true, customRules: 1, mode: 'marker' },
      });

      const replay = replayTransport(file);
      const fresh = makeClient('2.0.0');
      await fresh.client.connect(replay);
      const replayed = await fresh.client.callTool({ name: 'echo', arguments: { message: `key ${secret}` } });
      expect(replayed).toEqual({ content: [{ type: 'text', text: 'echo: key [REDACTED:acme]' }] });
      expect(replay.report().misses).toEqual([]);
      await fresh.client.close();
    } finally {
      if (saved === undefined) delete process.env.TAPEDECK_REDACT;
      else process.env.TAPEDECK_REDACT = saved;
    }
  });

  it('takes rules of its own, and fails before recording on a bad rule', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const file = join(dir, 'own.jsonl');
    const where = { cwd: dir, home: dir, env: {} };
    const recording = recordTransport(clientSide, {
      file,
      redact: { patterns: ['ticket-[0-9]{4}'], mode: 'marker', where },
    });
    const server = makeServer();
    await server.connect(serverSide);
    const { client } = makeClient();
    await client.connect(recording);
    await client.callTool({ name: 'echo', arguments: { message: 'ticket-1234' } });
    await client.close();
    await recording.closed;
    await server.close();
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('ticket-1234');
    expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({ redaction: { customRules: 1 } });

    const bad = join(dir, 'bad.jsonl');
    expect(() =>
      recordTransport(InMemoryTransport.createLinkedPair()[0], {
        file: bad,
        redact: { patterns: ['('], where },
      }),
    ).toThrow(/--redact/);
    await expect(stat(bad)).rejects.toThrow(/ENOENT/);
  });

  it('is a transparent decorator: send options, sessionId, setProtocolVersion, handlers already set', async () => {
    const calls: unknown[] = [];
    const closes: string[] = [];
    const inner: Transport = {
      sessionId: 'session-7',
      async start() {},
      async send(message, options) {
        calls.push(['send', message, options]);
      },
      async close() {
        this.onclose?.();
      },
      setProtocolVersion(version) {
        calls.push(['version', version]);
      },
      onclose: () => closes.push('inner handler'),
    };
    const sink = new MemorySink();
    const wrapped = recordTransport(inner, { sink, side: 'server' });
    const asSdk: Transport = wrapped;
    expect(asSdk.sessionId).toBe('session-7');
    wrapped.onclose = () => closes.push('outer handler');
    await wrapped.start();
    wrapped.setProtocolVersion('2025-11-25');
    await wrapped.send(
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
      { relatedRequestId: 4 },
    );
    inner.onmessage?.({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'x' } });
    await wrapped.close();
    expect(calls).toEqual([
      ['version', '2025-11-25'],
      [
        'send',
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
        { relatedRequestId: 4 },
      ],
    ]);
    expect(closes).toEqual(['inner handler', 'outer handler']);
    // A server-side transport: what it sends goes out to the client.
    const dirs = sink.lines
      .filter((l: TraceLine): l is MessageLine => 'dir' in l && 'raw' in l)
      .map((l) => l.dir);
    expect(dirs).toEqual(['out', 'in']);
  });

  it('needs a file or a sink', () => {
    const [clientSide] = InMemoryTransport.createLinkedPair();
    expect(() => recordTransport(clientSide, {})).toThrow('recordTransport needs one of `file`');
  });
});
