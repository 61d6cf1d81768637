import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startLiveRecording } from '../../src/cli/record/live.js';
import { CollectorSink, LiveFileSink } from '../../src/sink/collector.js';
import { MemorySink } from '../../src/sink/memory.js';
import { newMeta } from '../../src/trace/meta.js';
import type { RecordBody } from '../../src/trace/types.js';
import {
  type CollectorClient,
  json,
  TEST_TOKEN,
  useCollector,
  useCollectorApp,
} from '../collector/helpers.js';
import { ManualClock } from '../helpers/clock.js';
import { scratchDir } from '../helpers/scratch.js';

const T = '2026-03-01T10:00:00.000Z';
const body = (i: number): RecordBody => ({
  t: T,
  dir: i % 2 === 1 ? 'in' : 'out',
  raw:
    i % 2 === 1
      ? { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { i } } }
      : { jsonrpc: '2.0', id: i - 1, result: { content: [] } },
});

/** A fetch (to `inner`) that holds requests until `release()` and answers the first `failures` with 503. */
function flakyFetch(inner: typeof fetch, failures: number) {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let calls = 0;
  const wrapped: typeof fetch = async (input, init) => {
    calls += 1;
    await gate;
    if (calls <= failures) return new Response('{"error":{"message":"busy"}}', { status: 503 });
    return inner(input, init);
  };
  return { fetch: wrapped, release: () => release(), calls: () => calls };
}

const linesOf = async (h: CollectorClient, id: string) =>
  (await json(h.api(`/api/v1/traces/${id}/lines?limit=5000`))).lines as Record<string, unknown>[];

/** A fetch that finds nothing listening, as fetch says it. */
const unreachable: typeof fetch = async () => {
  throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
};

describe('the collector sink', () => {
  // The collector in process: its app answers the sink's requests through the fetch it is given.
  const h = useCollectorApp();

  it('streams a trace to a live trace: the same lines a file would hold, in order, ended', async () => {
    const sink = new CollectorSink({ url: h.url, token: TEST_TOKEN, label: 'streamed', fetch: h.fetch });
    const memory = new MemorySink();
    const meta = newMeta({ label: 'streamed', transport: 'stdio' });
    for (const s of [sink, memory]) s.start(meta);
    for (let i = 1; i <= 60; i += 1) for (const s of [sink, memory]) s.append(body(i));
    for (const s of [sink, memory]) await s.close({ reason: 'process_exit', exitCode: 0 });
    const id = sink.poster.id!;
    const summary = await json(h.api(`/api/v1/traces/${id}`));
    expect(summary).toMatchObject({ label: 'streamed', state: 'complete', lines: 60, ended: true });
    const jsonl = await (await h.api(`/api/v1/traces/${id}/trace.jsonl`)).text();
    const stored = jsonl
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const expected = memory.lines.map((l) => JSON.parse(JSON.stringify(l)));
    expect(stored.slice(0, -1)).toEqual(expected.slice(0, -1));
    expect(stored.at(-1)).toMatchObject({ type: 'end', reason: 'process_exit', counts: { in: 30, out: 30 } });
    expect(sink.poster.stats).toMatchObject({ sent: 62, dropped: 0 });
  });

  it('retries a busy collector with backoff and stores every line once', async () => {
    const { id } = await json(h.api('/api/v1/traces/live', { method: 'POST' }));
    const flaky = flakyFetch(h.fetch, 2);
    const sink = new CollectorSink({
      url: h.url,
      token: TEST_TOKEN,
      traceId: id,
      fetch: flaky.fetch,
      retryMinMs: 5,
    });
    sink.start(newMeta({ label: 'busy' }));
    for (let i = 1; i <= 10; i += 1) sink.append(body(i));
    flaky.release();
    await sink.close({ reason: 'producer_shutdown' });
    expect(sink.poster.stats.retries).toBeGreaterThanOrEqual(2);
    expect((await linesOf(h, id)).map((l) => l.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('never makes the recording wait: a full queue drops lines and says so in a dropped event', async () => {
    const { id } = await json(h.api('/api/v1/traces/live', { method: 'POST' }));
    const slow = flakyFetch(h.fetch, 0);
    const sink = new CollectorSink({
      url: h.url,
      token: TEST_TOKEN,
      traceId: id,
      fetch: slow.fetch,
      maxQueueLines: 10,
      flushMs: 0,
    });
    sink.start(newMeta({ label: 'slow' }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The meta line is in flight and held; 9 more fit in the queue, 16 are dropped.
    for (let i = 1; i <= 25; i += 1) sink.append(body(i));
    expect(sink.poster.stats.dropped).toBe(16);
    slow.release();
    await sink.close({ reason: 'producer_shutdown' });
    const lines = await linesOf(h, id);
    expect(lines.map((l) => l.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 26]);
    expect(lines.at(-1)).toMatchObject({ type: 'event', name: 'dropped', count: 16, target: 'collector' });
    expect((await json(h.api(`/api/v1/traces/${id}`))).ended).toBe(true);
  });

  it('gives up on an unreachable collector at exactly its close timeout, counting what it could not send', async () => {
    const clock = new ManualClock();
    const sink = new CollectorSink({
      url: h.url,
      token: TEST_TOKEN,
      traceId: 'AAAAAAAAAAAAAAAA',
      fetch: unreachable,
      scheduler: clock,
      closeTimeoutMs: 300,
      retryMinMs: 10,
      warn: () => {},
    });
    sink.start(newMeta({ label: 'nowhere' }));
    for (let i = 1; i <= 5; i += 1) sink.append(body(i));
    let closed = false;
    const closing = sink.close({ reason: 'producer_shutdown' }).then(() => {
      closed = true;
    });
    await clock.advance(299);
    expect(closed).toBe(false);
    await clock.advance(1);
    await closing;
    expect(sink.poster.stats).toMatchObject({ sent: 0, dropped: 7 });
  });
});

describe('record --live', () => {
  const h = useCollector();
  let dir = '';
  beforeEach(() => {
    dir = scratchDir('tapedeck-live-');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('tees every line to the collector named by URL and the trace file alike', async () => {
    const path = join(dir, 'traces', 'run.jsonl');
    const live = await startLiveRecording({
      url: `${h.url}/`,
      token: TEST_TOKEN,
      label: 'teed',
      file: { path },
      env: {},
    });
    expect(live.viewerUrl).toBe(`${h.url}/#trace=${live.traceId}`);
    expect(live.notice).toBe(`tapedeck: live view at ${live.viewerUrl}`);
    live.sink.start(newMeta({ label: 'teed', transport: 'stdio' }));
    for (let i = 1; i <= 8; i += 1) live.sink.append(body(i));
    await live.sink.close({ reason: 'process_exit', exitCode: 0 });
    await live.close();
    const file = readFileSync(path, 'utf8').trimEnd().split('\n');
    const stored = (await (await fetch(`${h.url}/api/v1/traces/${live.traceId}/trace.jsonl`)).text())
      .trimEnd()
      .split('\n');
    expect(stored.map((l) => JSON.parse(l))).toEqual(file.map((l) => JSON.parse(l)));
  });

  it('without a URL serves the live view from a collector inside the recorder, until it stops', async () => {
    const env = { ...process.env, TAPEDECK_HOME: join(dir, 'home') };
    const live = await startLiveRecording({ label: 'inside', file: { path: join(dir, 'in.jsonl') }, env });
    expect(live.collectorUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    live.sink.start(newMeta({ label: 'inside' }));
    live.sink.append(body(1));
    await live.sink.close({ reason: 'process_exit' });
    const summary = await json(fetch(`${live.collectorUrl}/api/v1/traces/${live.traceId}`));
    expect(summary).toMatchObject({ label: 'inside', lines: 1, ended: true });
    await live.close();
    await expect(fetch(`${live.collectorUrl}/api/v1/health`)).rejects.toThrow();
    expect(readFileSync(join(dir, 'home', 'token'), 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps the file whole when the collector goes away, and notes the lines the live view lost', async () => {
    const path = join(dir, 'lost.jsonl');
    const clock = new ManualClock();
    const sink = new LiveFileSink({
      path,
      collector: {
        url: h.url,
        token: TEST_TOKEN,
        traceId: 'AAAAAAAAAAAAAAAA',
        fetch: unreachable,
        scheduler: clock,
        maxQueueLines: 3,
        closeTimeoutMs: 200,
        retryMinMs: 10,
        warn: () => {},
      },
    });
    sink.start(newMeta({ label: 'lost' }));
    for (let i = 1; i <= 10; i += 1) sink.append(body(i));
    const closing = sink.close({ reason: 'process_exit' });
    await clock.advance(200);
    await closing;
    const lines = readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.dir !== undefined)).toHaveLength(10);
    expect(lines.at(-2)).toMatchObject({
      type: 'event',
      name: 'dropped',
      count: 8,
      target: 'collector',
      seq: 11,
    });
    expect(lines.at(-1)).toMatchObject({ type: 'end', counts: { in: 5, out: 5, events: 1 } });
  });

  it('fails before recording when the collector refuses the token', async () => {
    await expect(
      startLiveRecording({
        url: h.url,
        token: 'cd'.repeat(32),
        label: 'x',
        file: { path: join(dir, 'x.jsonl') },
        env: {},
      }),
    ).rejects.toThrow(/answered 401: the token is wrong/);
  });
});
