import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { type Collector, startCollector } from '../../../src/collector/index.js';
import { TraceModel } from '../../../viewer/src/data/model.js';
import { chooseSource } from '../../../viewer/src/source/boot.js';
import { collectorSource } from '../../../viewer/src/source/collector.js';
import type { SocketLike } from '../../../viewer/src/source/live-client.js';
import type { Opened, TraceSource } from '../../../viewer/src/source/trace-source.js';
import { liveSession, startTestCollector } from '../live-session.js';
import { jsonl, openModel } from '../open-model.js';
import { MCP_TAPE, writeRotatedTrace } from '../traces.js';

/** A ceiling for a live update to reach the model, not a budget (vi.waitFor's own is a second). */
const WAIT = { timeout: 20_000 };

/** The collector source against a real collector (in process, on a free port): its list, finished and live traces. */

const TOKEN = 'ab'.repeat(32);
const session = liveSession('2026-11-29T12:00:00.000Z', 'live-calc');
const { meta: META, calls } = session;

const noPage = { querySelectorAll: () => [], getElementById: () => null };
/** A `ws` socket standing in for the browser's: a refused connection is a close, as in a browser, not a throw. */
const wsSocket = (url: string, protocols: string[]) => {
  const ws = new WebSocket(url, protocols);
  ws.on('error', () => {});
  return ws as unknown as SocketLike;
};

describe('the collector as a trace source', () => {
  let dir: string;
  let collector: Collector;
  let source: TraceSource;
  const opened: Opened[] = [];
  const start = (port = 0) => startTestCollector(dir, TOKEN, port);
  const api = async (path: string, body: string) => {
    const response = await fetch(`${collector.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body,
    });
    expect(response.status).toBeLessThan(300);
    return (await response.json()) as { id: string; url: string };
  };
  const open = (model: TraceModel, ref: { kind: 'trace' | 'share'; id: string } | undefined) => {
    const handle = source.open(model, ref);
    opened.push(handle);
    return handle;
  };
  const newLive = async (lines: object[]) => {
    const { id } = await api('/api/v1/traces/live', JSON.stringify({ label: 'live-calc' }));
    await api(`/api/v1/traces/${id}/lines`, jsonl([META, ...lines]));
    return id;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tapedeck-viewer-collector-source-'));
    collector = await start();
    source = collectorSource({
      base: new URL(`${collector.url}/`),
      token: TOKEN,
      socket: wsSocket,
      frame: (paint) => paint(),
      reconnectMs: 20,
    });
  });
  afterEach(() => {
    for (const handle of opened.splice(0)) handle.close();
  });
  afterAll(async () => {
    await collector?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the traces it holds, newest first, and searches them on the collector’s side', async () => {
    const everything = await api('/api/v1/traces?label=everything', readFileSync(MCP_TAPE, 'utf8'));
    const rotated = writeRotatedTrace(dir);
    const calc = await api('/api/v1/traces?label=calc', readFileSync(rotated.files[1]!, 'utf8'));
    const all = (await source.list())!;
    expect(all.map((t) => t.id).slice(0, 2)).toEqual([calc.id, everything.id]);
    expect(all.find((t) => t.id === calc.id)).toMatchObject({ label: 'calc', live: false, errors: 1 });
    expect((await source.list({ tool: 'divide' }))!.map((t) => t.id)).toEqual([calc.id]);
    expect((await source.list({ label: 'everyth' }))!.map((t) => t.id)).toEqual([everything.id]);
    expect((await source.list({ errors: true, tool: 'get-sum' }))!).toEqual([]);
    expect((await source.list({ limit: 1 }))!.map((t) => t.id)).toEqual([calc.id]);
  });

  it('needs the token it was opened with when reads need one', async () => {
    const guarded = await startCollector({
      dbPath: join(dir, 'guarded', 'tapedeck.db'),
      token: TOKEN,
      port: 0,
      requireReadToken: true,
    });
    try {
      const withToken = chooseSource(noPage, `${guarded.url}/?token=${TOKEN}#/`);
      expect(await withToken.list()).toEqual([]);
      const without = chooseSource(noPage, `${guarded.url}/#/`);
      await expect(without.list()).rejects.toThrow('the collector answered 401 for its trace list');
    } finally {
      await guarded.close();
    }
  });

  it('reads a finished trace whole, to the rows of the same file opened locally, also through a share link', async () => {
    const text = readFileSync(MCP_TAPE, 'utf8');
    const { id } = await api('/api/v1/traces?label=everything', text);
    const model = new TraceModel();
    await open(model, { kind: 'trace', id }).ready;
    const local = await openModel({ 'd0/everything-stdio.jsonl': text });
    expect(model.failures).toEqual([]);
    expect(model.sources[0]!.info.name).toBe('everything.jsonl');
    expect(model.rows().map((r) => [r.key, r.kind])).toEqual(local.rows().map((r) => [r.key, r.kind]));
    expect(model.following()).toBeUndefined();
    expect(model.loading).toBeUndefined();

    const share = await api(`/api/v1/traces/${id}/shares`, '{}');
    const shared = new TraceModel();
    await open(shared, { kind: 'share', id: share.id }).ready;
    expect(shared.rows()).toHaveLength(local.rows().length);
  });

  it('says which trace it could not open', async () => {
    const model = new TraceModel();
    await open(model, { kind: 'trace', id: 'A'.repeat(16) }).ready;
    expect(model.failures).toEqual([
      expect.stringMatching(
        /^Could not open the trace: the collector answered 404 for api\/v1\/traces\/A{16}/,
      ),
    ]);
    const nothing = new TraceModel();
    await open(nothing, undefined).ready;
    expect(nothing.failures).toEqual([
      'Could not open the trace: no trace was named (open a #/trace/<id> link)',
    ]);
  });

  it('follows a live trace: the snapshot, then new lines, answers completing rows already shown, then the end', async () => {
    const id = await newLive(calls(1, 4));
    const model = new TraceModel();
    await open(model, { kind: 'trace', id }).ready;
    await vi.waitFor(() => expect(model.following()?.status).toBe('live'), WAIT);
    await vi.waitFor(() => expect(model.rows()).toHaveLength(4), WAIT);
    const follow = model.following()!;
    expect([follow.snapshotSeq, follow.lastSeq, follow.caughtUp, follow.appended]).toEqual([4, 4, true, 0]);
    expect(model.sources[0]!.info.format).toBe('live');
    expect(model.sources[0]!.info.meta.label).toBe('live-calc');

    await api(`/api/v1/traces/${id}/lines`, jsonl(calls(5, 5)));
    await vi.waitFor(() => expect(model.rows()).toHaveLength(5), WAIT);
    const pending = model.row('0.5')!;
    expect(pending.exchange!.outcome).toBe('open');
    await api(`/api/v1/traces/${id}/lines`, jsonl(calls(6, 6)));
    await vi.waitFor(() => expect(pending.exchange!.outcome).toBe('ok'), WAIT);
    expect([follow.lastSeq, follow.appended]).toEqual([6, 2]);
    expect(model.sources[0]!.info.files[0]!.lineCount()).toBe(7);

    await api(`/api/v1/traces/${id}/lines`, jsonl([session.end(100)]));
    await vi.waitFor(() => expect(follow.status).toBe('ended'), WAIT);
    expect(model.sources[0]!.ended).toBe(true);
    expect(model.rows().at(-1)!.kind).toBe('end');
    expect(model.sources[0]!.statistics().ended).toBe(true);
  });

  it('resumes after the collector restarts, asking only for what it has not seen', async () => {
    const id = await newLive(calls(1, 2));
    const model = new TraceModel();
    await open(model, { kind: 'trace', id }).ready;
    await vi.waitFor(() => expect(model.rows()).toHaveLength(2), WAIT);
    const follow = model.following()!;
    const port = collector.port;
    await collector.close();
    await vi.waitFor(() => expect(follow.status).toBe('reconnecting'), WAIT);
    collector = await start(port);
    await api(`/api/v1/traces/${id}/lines`, jsonl(calls(3, 4)));
    await vi.waitFor(() => expect(model.rows()).toHaveLength(4), WAIT);
    await vi.waitFor(() => expect(follow.status).toBe('live'), WAIT);
    expect(follow.connections).toBeGreaterThanOrEqual(2);
    const keys = model.rows().map((r) => r.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect([follow.lastSeq, follow.appended]).toEqual([4, 2]);
  });

  it('stops following when the page moves on', async () => {
    const id = await newLive(calls(1, 2));
    const model = new TraceModel();
    const handle = open(model, { kind: 'trace', id });
    await handle.ready;
    await vi.waitFor(() => expect(model.rows()).toHaveLength(2), WAIT);
    handle.close();
    expect(model.following()?.status).toBe('closed');
    await api(`/api/v1/traces/${id}/lines`, jsonl(calls(3, 4)));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(model.rows()).toHaveLength(2);
  });
});
