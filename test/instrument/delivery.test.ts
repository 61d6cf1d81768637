import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Collector, startCollector } from '../../src/collector/index.js';
import { type Destination, type InstrumentOptions, instrument } from '../../src/instrument/index.js';
import { linkClient, memoryEvents, type Receiver, startReceiver } from './helpers.js';

const TOKEN = 'cd'.repeat(32);
const execFileAsync = promisify(execFile);

function echoServer(): McpServer {
  const server = new McpServer({ name: 'echoes', version: '2.0.0' });
  server.registerTool('echo', { inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: 'text', text: message }],
  }));
  server.registerTool('fail', {}, async () => ({ content: [{ type: 'text', text: 'nope' }], isError: true }));
  return server;
}

async function serve(to: Destination | Destination[], options: Omit<InstrumentOptions, 'to'> = {}) {
  const errors: string[] = [];
  const server = echoServer();
  const recorder = instrument(server, { to, onError: (e) => errors.push(e.message), ...options });
  const client = await linkClient(server);
  const echo = (message: string) => client.callTool({ name: 'echo', arguments: { message } });
  return { errors, recorder, client, echo };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('instrument: batching and delivery', () => {
  it('uploads 1000 requests in batches of maxBatchSize: 40 uploads of 25', async () => {
    const kept = memoryEvents();
    const { recorder, client, echo } = await serve(
      { type: 'sink', sink: kept.sink },
      { flushInterval: 60_000 },
    );
    cleanup.push(() => client.close());
    for (let i = 0; i < 999; i += 1) await echo(`m${i}`);
    await recorder.flush();
    // 999 calls + initialize.
    expect(kept.events).toHaveLength(1000);
    expect(kept.batches).toEqual(Array.from({ length: 40 }, () => 25));
    expect(recorder.stats()).toMatchObject({ captured: 1000, delivered: 1000, uploads: 40, queued: 0 });
  });

  it('flushes at shutdown, survives repeated shutdowns, and keeps recording afterwards', async () => {
    const kept = memoryEvents();
    const { recorder, client, echo } = await serve(
      { type: 'sink', sink: kept.sink },
      { flushInterval: 60_000 },
    );
    cleanup.push(() => client.close());
    await echo('a');
    await echo('b');
    expect(kept.events).toHaveLength(0);
    await recorder.shutdown();
    expect(kept.events).toHaveLength(3);
    await recorder.shutdown();
    await Promise.all([recorder.shutdown(), recorder.shutdown()]);
    await echo('c');
    await recorder.shutdown();
    expect(kept.events.map((e) => e.method)).toEqual([
      'initialize',
      'tools/call',
      'tools/call',
      'tools/call',
    ]);
  });

  it('delivers sessions to a real collector as live traces with their end line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapedeck-instrument-'));
    const collector: Collector = await startCollector({
      dbPath: join(dir, 'db', 'tapedeck.db'),
      token: TOKEN,
      port: 0,
      viewerDir: join(dir, 'no-viewer'),
    });
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    cleanup.push(() => collector.close());
    const { recorder, client, echo, errors } = await serve(
      { type: 'collector', url: collector.url, token: TOKEN },
      { flushInterval: 60_000, release: 'v2.0.0-rc1' },
    );
    cleanup.push(() => client.close());
    for (let i = 0; i < 60; i += 1) await echo(`hello ${i}`);
    await client.callTool({ name: 'fail', arguments: {} });
    await recorder.shutdown();
    expect(errors).toEqual([]);

    const api = (path: string) =>
      fetch(`${collector.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } }).then(
        (r) => r.json() as Promise<Record<string, unknown>>,
      );
    const { traces } = (await api('/api/v1/traces')) as { traces: Array<Record<string, unknown>> };
    expect(traces).toHaveLength(1);
    const trace = traces[0]!;
    expect(trace).toMatchObject({
      server: 'echoes',
      transport: 'memory',
      ended: true,
      messages: { in: 62, out: 62 },
      errors: 1,
    });
    expect(String(trace.label)).toMatch(/^echoes · process /);
    const page = (await api(`/api/v1/traces/${trace.id}/lines?limit=5000`)) as {
      lines: Array<Record<string, unknown>>;
    };
    const messages = page.lines.filter((line) => line.type === undefined);
    const first = messages[0];
    expect(first).toMatchObject({ dir: 'in', raw: { method: 'initialize' } });
    expect(new Set(messages.map((line) => line.conn)).size).toBe(1);
    const jsonl = await fetch(`${collector.url}/api/v1/traces/${trace.id}/trace.jsonl`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    }).then((r) => r.text());
    const meta = JSON.parse(jsonl.split('\n')[0]!) as Record<string, unknown>;
    expect(meta).toMatchObject({ type: 'meta', release: 'v2.0.0-rc1', server: 'echoes' });

    // After shutdown the session goes on in a new live trace.
    await echo('later');
    await recorder.shutdown();
    const after = (await api('/api/v1/traces')) as { traces: Array<Record<string, unknown>> };
    expect(after.traces).toHaveLength(2);
  });

  it('tries a failing collector again with backoff, with the token, and sends the meta line first', async () => {
    const receiver: Receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    let appends = 0;
    receiver.respond = (req) => {
      if (req.url === '/api/v1/traces/live') return { status: 201, body: '{"id":"trace-1"}' };
      appends += 1;
      if (appends <= 2) return { status: 503, body: '{"error":{"code":"busy","message":"try later"}}' };
      return { status: 200, body: '{"appended":1}' };
    };
    const { recorder, client, echo, errors } = await serve(
      { type: 'collector', url: `${receiver.url}/`, token: 'tok-1', backoffMs: 5 },
      { flushInterval: 60_000 },
    );
    cleanup.push(() => client.close());
    await echo('x');
    await recorder.flush();
    expect(errors).toEqual([]);
    expect(receiver.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /api/v1/traces/live',
      'POST /api/v1/traces/trace-1/lines',
      'POST /api/v1/traces/trace-1/lines',
      'POST /api/v1/traces/trace-1/lines',
    ]);
    expect(receiver.requests.every((r) => r.headers.authorization === 'Bearer tok-1')).toBe(true);
    const lines = receiver.requests[3]!.body.trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ type: 'meta', v: 1 });
    expect(lines.slice(1).map((l) => l.dir)).toEqual(['in', 'out', 'in', 'out']);
    expect(receiver.requests[1]!.body).toBe(receiver.requests[3]!.body);
  });

  it('finishes a shutdown, retries included, in a process whose server has already stopped', async () => {
    const receiver: Receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    let appends = 0;
    receiver.respond = (req) => {
      if (req.url === '/api/v1/traces/live') return { status: 201, body: '{"id":"trace-9"}' };
      appends += 1;
      // The first upload fails: the recorder waits (backoffMs) with nothing else keeping the process alive.
      if (appends === 1) return { status: 503, body: '{"error":{"code":"busy","message":"try later"}}' };
      return { status: 200, body: '{"appended":1}' };
    };
    const fixture = join(import.meta.dirname, 'fixtures', 'shutdown-after-close.mjs');
    const { stdout } = await execFileAsync(process.execPath, [fixture, receiver.url]);
    const { stats, errors } = JSON.parse(stdout) as { stats: Record<string, number>; errors: string[] };
    expect(errors).toEqual([]);
    expect(stats).toMatchObject({ captured: 2, delivered: 2, droppedUploadFailed: 0 });
    const appended = receiver.requests.filter((r) => r.url === '/api/v1/traces/trace-9/lines');
    expect(appended.length).toBeGreaterThanOrEqual(2);
    expect(appended.at(-1)!.body).toContain('"type":"end"');
  });

  it('with the collector down: reports through onError, keeps answering, bounds the queue and counts drops', async () => {
    const port = await closedPort();
    const { recorder, client, echo, errors } = await serve(
      { type: 'collector', url: `http://127.0.0.1:${port}`, token: TOKEN, attempts: 2, backoffMs: 5 },
      { maxQueue: 40, maxBatchSize: 10, flushInterval: 5 },
    );
    cleanup.push(() => client.close());
    let maxQueued = 0;
    for (let i = 0; i < 300; i += 1) {
      const result = await echo(`still here ${i}`);
      expect(result.content).toEqual([{ type: 'text', text: `still here ${i}` }]);
      maxQueued = Math.max(maxQueued, recorder.stats().queued);
      if (i % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await recorder.shutdown();
    const stats = recorder.stats();
    expect(maxQueued).toBeLessThanOrEqual(40);
    expect(stats.captured).toBe(301);
    expect(stats.droppedQueueFull).toBeGreaterThan(0);
    expect(stats.droppedUploadFailed).toBeGreaterThan(0);
    expect(stats.delivered).toBe(0);
    expect(stats.queued).toBe(0);
    expect(stats.droppedQueueFull + stats.droppedUploadFailed).toBe(301);
    expect(
      errors.some((m) =>
        /collector sink: \d+ events lost: upload to .* failed after 2 tries: ECONNREFUSED/.test(m),
      ),
    ).toBe(true);
    expect(errors.some((m) => /queue full: dropped the \d+ oldest events \(maxQueue 40\)/.test(m))).toBe(
      true,
    );
  });
});
