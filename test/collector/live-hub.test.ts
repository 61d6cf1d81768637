/**
 * The live hub on a hand-moved clock, with sockets that are plain objects: heartbeats to the millisecond, a viewer
 * whose send buffer is as full as the test says, share expiry however far off. The real websocket's path (upgrade,
 * guards, `ws` itself) is tested in live.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { LiveSocket } from '../../src/collector/live.js';
import type { CollectorOptions } from '../../src/collector/options.js';
import { ManualClock } from '../helpers/clock.js';
import { json, type Loose, sampleTrace, useCollectorApp } from './helpers.js';

const OPEN = 1;
const CLOSED = 3;

/** A socket the hub can use, whose send buffer the test fills and drains by hand. */
class FakeSocket implements LiveSocket {
  readyState = OPEN;
  bufferedAmount = 0;
  readonly sent: string[] = [];
  pings = 0;
  terminated = false;
  closedWith: { code?: number | undefined; reason?: string | undefined } | undefined;
  private readonly listeners = new Map<string, (() => void)[]>();

  send(data: string): void {
    this.sent.push(data);
  }
  close(code?: number, reason?: string): void {
    if (this.readyState === CLOSED) return;
    this.closedWith = { code, reason };
    this.readyState = CLOSED;
    this.emit('close');
  }
  terminate(): void {
    if (this.readyState === CLOSED) return;
    this.terminated = true;
    this.readyState = CLOSED;
    this.emit('close');
  }
  ping(): void {
    this.pings += 1;
  }
  on(event: 'pong' | 'close' | 'error', listener: () => void): unknown {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  emit(event: 'pong' | 'close' | 'error'): void {
    for (const listener of this.listeners.get(event) ?? []) listener();
  }
  frames(): Loose[] {
    return this.sent.map((text) => JSON.parse(text));
  }
  seqs(): number[] {
    return this.frames()
      .filter((f) => f.type === 'lines')
      .flatMap((f) => f.lines.map((l: { seq: number }) => l.seq));
  }
}

const T = '2026-03-01T10:00:00.000Z';
const stderrLine = (seq: number) => JSON.stringify({ t: T, seq, type: 'stderr', text: `line ${seq}` });

function useHub(options: Partial<CollectorOptions['live']> = {}) {
  const clock = new ManualClock();
  const h = useCollectorApp({
    scheduler: clock,
    live: { heartbeatMs: 1000, maxBufferedBytes: 1000, snapshotLines: 1000, ...options },
  });
  const append = async (id: string, lines: string[]) => {
    const response = await h.api(`/api/v1/traces/${id}/lines`, {
      method: 'POST',
      body: `${lines.join('\n')}\n`,
    });
    expect(response.status).toBe(200);
  };
  /** A live trace with its meta line and `records` stderr lines; its row, for attach. */
  const liveTrace = async (records = 0) => {
    const { id } = await json(h.api('/api/v1/traces/live', { method: 'POST' }));
    const meta = sampleTrace().split('\n')[0]!;
    await append(id, [meta, ...Array.from({ length: records }, (_, i) => stderrLine(i + 1))]);
    const row = (await h.collector.store.get(id))!;
    return { id, row: { id: row.id, n: row.n } };
  };
  return { clock, h, append, liveTrace };
}

describe('the live hub: snapshot, appends, end', () => {
  const { clock, h, append, liveTrace } = useHub();

  it('sends what is stored after `since`, then each committed append, then end and 1000', async () => {
    const { id, row } = await liveTrace(3);
    const ws = new FakeSocket();
    h.collector.hub.attach(ws, row, 1);
    await clock.advance(0);
    expect(ws.seqs()).toEqual([2, 3]);
    await append(id, [stderrLine(4), stderrLine(5)]);
    expect(ws.seqs()).toEqual([2, 3, 4, 5]);
    await append(id, [JSON.stringify({ t: T, type: 'end', durationMs: 5, reason: 'process_exit' })]);
    expect(ws.frames().at(-1)).toMatchObject({ type: 'end', line: { type: 'end', reason: 'process_exit' } });
    expect(ws.closedWith).toEqual({ code: 1000, reason: 'end' });
    expect(h.collector.hub.size).toBe(0);
  });

  it('waits, 10 ms at a time, while the send buffer is over its bound, before each page of the snapshot', async () => {
    const { row } = await liveTrace(3);
    const ws = new FakeSocket();
    ws.bufferedAmount = 5000;
    h.collector.hub.attach(ws, row, 0);
    await clock.advance(0);
    expect(ws.sent).toEqual([]);
    expect(clock.pending().filter((t) => t.ms === 10)).toHaveLength(1);
    await clock.advance(30);
    expect(ws.sent).toEqual([]);
    ws.bufferedAmount = 0;
    await clock.advance(9);
    expect(ws.sent).toEqual([]);
    await clock.advance(1);
    expect(ws.seqs()).toEqual([1, 2, 3]);
  });
  it('reads the lines told late from the store first, so a viewer gets every line once and in order', async () => {
    // On a shared database another collector's commit can be told after this collector's own later one.
    const hub = h.collector.hub as unknown as {
      append(id: string, lines: { seq: number; text: string }[]): void;
    };
    const { id, row } = await liveTrace(3);
    const ws = new FakeSocket();
    h.collector.hub.attach(ws, row, 3);
    await clock.advance(0);
    const tell = hub.append;
    hub.append = () => {};
    await append(id, [4, 5, 6, 7].map(stderrLine));
    hub.append = tell;
    hub.append(
      id,
      [6, 7].map((seq) => ({ seq, text: stderrLine(seq) })),
    );
    await clock.advance(0);
    expect(ws.seqs()).toEqual([4, 5, 6, 7]);
    hub.append(
      id,
      [4, 5].map((seq) => ({ seq, text: stderrLine(seq) })),
    );
    await append(id, [stderrLine(8)]);
    expect(ws.seqs()).toEqual([4, 5, 6, 7, 8]);
  });
});

describe('the live hub: heartbeats', () => {
  const { clock, h, liveTrace } = useHub();

  it('pings every heartbeatMs, and cuts off a viewer that did not answer the previous ping', async () => {
    const { row } = await liveTrace();
    const [answers, silent] = [new FakeSocket(), new FakeSocket()];
    h.collector.hub.attach(answers, row, 0);
    h.collector.hub.attach(silent, row, 0);
    answers.on('pong', () => {});
    await clock.advance(999);
    expect([answers.pings, silent.pings]).toEqual([0, 0]);
    await clock.advance(1);
    expect([answers.pings, silent.pings]).toEqual([1, 1]);
    answers.emit('pong');
    await clock.advance(999);
    expect(silent.terminated).toBe(false);
    await clock.advance(1);
    expect(silent.terminated).toBe(true);
    expect(answers.pings).toBe(2);
    expect(answers.terminated).toBe(false);
    expect(h.collector.hub.size).toBe(1);
    answers.emit('pong');
    await clock.advance(1000);
    expect(answers.pings).toBe(3);
    h.collector.hub.close();
    expect(answers.terminated).toBe(true);
    // Closed: no timer of the hub's is left behind.
    expect(clock.pending().filter((t) => t.ms === 1000)).toEqual([]);
  });
});

describe('the live hub: a viewer too slow to keep up', () => {
  const { clock, h, append, liveTrace } = useHub({ heartbeatMs: 3_600_000 });

  it('drops lines for it past maxBufferedBytes, counts them, and says how many once the buffer has room', async () => {
    const { id, row } = await liveTrace(2);
    const ws = new FakeSocket();
    h.collector.hub.attach(ws, row, 0);
    await clock.advance(0);
    expect(ws.seqs()).toEqual([1, 2]);
    ws.bufferedAmount = 1001;
    await append(id, [stderrLine(3), stderrLine(4)]);
    await append(id, [stderrLine(5)]);
    expect(ws.seqs()).toEqual([1, 2]);
    // Checked again every 25 ms while the buffer stays full.
    await clock.advance(25);
    expect(ws.sent).toHaveLength(1);
    ws.bufferedAmount = 1000;
    await clock.advance(24);
    expect(ws.sent).toHaveLength(1);
    await clock.advance(1);
    expect(ws.frames().at(-1)).toEqual({ type: 'dropped', count: 3 });
    expect(clock.pending().filter((t) => t.ms === 25)).toEqual([]);
    // What comes next is sent; what was dropped is not sent late.
    await append(id, [stderrLine(6)]);
    expect(ws.seqs()).toEqual([1, 2, 6]);
    expect((await json(h.api(`/api/v1/traces/${id}`))).lines).toBe(6);
  });

  it('says how many lines it missed before the end, even when its buffer never drains', async () => {
    const { id, row } = await liveTrace(1);
    const ws = new FakeSocket();
    h.collector.hub.attach(ws, row, 0);
    await clock.advance(0);
    ws.bufferedAmount = 5000;
    await append(id, [stderrLine(2), stderrLine(3)]);
    await append(id, [JSON.stringify({ t: T, type: 'end', durationMs: 3, reason: 'process_exit' })]);
    expect(ws.frames().slice(1)).toEqual([
      { type: 'dropped', count: 2 },
      { type: 'end', line: expect.objectContaining({ type: 'end' }) },
    ]);
    expect(ws.closedWith?.code).toBe(1000);
  });
});

describe('the live hub: share links', () => {
  const { clock, h, liveTrace } = useHub({ heartbeatMs: 365 * 24 * 3_600_000 });
  const MAX_TIMER_MS = 2 ** 31 - 1;

  it('closes a share link socket at the moment the share expires (4410)', async () => {
    const { row } = await liveTrace();
    const ws = new FakeSocket();
    h.collector.hub.attach(ws, row, 0, { id: 'share-a', expiresMs: clock.now() + 5000 });
    await clock.advance(4999);
    expect(ws.readyState).toBe(OPEN);
    await clock.advance(1);
    expect(ws.closedWith).toEqual({ code: 4410, reason: 'share expired' });
  });

  it('waits out a share that ends further off than one timer can, re-arming on the way', async () => {
    const { row } = await liveTrace();
    const ws = new FakeSocket();
    const month = 30 * 24 * 3_600_000;
    h.collector.hub.attach(ws, row, 0, { id: 'share-b', expiresMs: clock.now() + month });
    expect(clock.pending().map((t) => t.ms)).toContain(MAX_TIMER_MS);
    await clock.advance(MAX_TIMER_MS);
    expect(ws.readyState).toBe(OPEN);
    expect(clock.pending().map((t) => t.ms)).toContain(month - MAX_TIMER_MS);
    await clock.advance(month - MAX_TIMER_MS - 1);
    expect(ws.readyState).toBe(OPEN);
    await clock.advance(1);
    expect(ws.closedWith).toEqual({ code: 4410, reason: 'share expired' });
  });

  it('refuses at once a share that has already expired, and closes revoked shares only', async () => {
    const { row } = await liveTrace();
    const late = new FakeSocket();
    h.collector.hub.attach(late, row, 0, { id: 'share-c', expiresMs: clock.now() });
    expect(late.closedWith).toEqual({ code: 4410, reason: 'share expired' });
    const [revoked, other, own] = [new FakeSocket(), new FakeSocket(), new FakeSocket()];
    h.collector.hub.attach(revoked, row, 0, { id: 'share-d', expiresMs: clock.now() + 60_000 });
    h.collector.hub.attach(other, row, 0, { id: 'share-e', expiresMs: clock.now() + 60_000 });
    h.collector.hub.attach(own, row, 0);
    h.collector.hub.revokeShare('share-d');
    expect(revoked.closedWith).toEqual({ code: 4410, reason: 'share revoked' });
    expect([other.readyState, own.readyState]).toEqual([OPEN, OPEN]);
  });
});
