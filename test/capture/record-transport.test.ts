/**
 * recordTransport in-process, with the official SDK's Client, McpServer and linked InMemoryTransports: no
 * processes, no ports. What it records replays through replayTransport.
 */
import { statSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordTransport } from '../../src/capture/record-transport.js';
import { buildCassette } from '../../src/replay/cassette/cassette.js';
import { replayTransport } from '../../src/replay/sdk/replay-transport.js';
import { MemorySink } from '../../src/sink/memory.js';
import { loadTrace } from '../../src/trace/io.js';
import type { JsonObject } from '../../src/trace/jsonrpc.js';
import type { MessageLine, TraceLine } from '../../src/trace/types.js';
import { makeClient, makeServer, session } from '../helpers/sdk-session.js';

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
