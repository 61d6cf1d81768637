import type { WebSocket } from 'ws';
import { delay, every, realScheduler, type Scheduler, type Timer } from '../base/scheduler.js';
import type { LiveOptions } from './options.js';
import type { CollectorStore, StoredLine } from './store.js';

/**
 * The live websocket: a viewer gets the lines after `since` (the snapshot, read from the store a page at a time
 * and paced by the socket's send buffer), then every line as it is committed. A viewer that cannot keep up is
 * never allowed to grow the collector's memory: once its send buffer holds more than `maxBufferedBytes`, lines
 * for it are dropped and counted, and it is told `{type:"dropped",count}` as soon as it has caught up; it can
 * fetch the gap by seq or reconnect with `?since=`. Frames (text, JSON):
 *   {"type":"lines","lines":[<trace line>, …]}   {"type":"dropped","count":N}   {"type":"end","line":<end line>}
 * After `end` the socket is closed (1000). A deleted trace closes it with 4404; a socket opened through a share
 * link is closed with 4410 when the share expires or is revoked, as its REST reads turn 410. Pings go out every
 * `heartbeatMs`; a viewer that missed the previous pong is cut off.
 */

/** The longest delay a Node timer takes (about 24.8 days); a share's expiry further off is re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A socket opened with a share link: which share, and when it ends. */
export interface ShareGrant {
  id: string;
  expiresMs: number;
}

const OPEN = 1;

/**
 * The part of a `ws` socket the hub uses, declared here so that tapedeck's published types compile without
 * `@types/ws`.
 */
export interface LiveSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  ping(): void;
  on(event: 'pong' | 'close' | 'error', listener: () => void): unknown;
}

// Compile-time only: a real `ws` socket fits the declared subset.
const fits = (ws: WebSocket): LiveSocket => ws;
void fits;

interface Viewer {
  ws: LiveSocket;
  traceId: string;
  n: number;
  state: 'snapshot' | 'live';
  lastSent: number;
  dropped: number;
  dropTimer: Timer | undefined;
  alive: boolean;
  share: ShareGrant | undefined;
  expiry: Timer | undefined;
  /** Lines committed while the snapshot was being read (sent after it, past what it sent). */
  pending: StoredLine[];
  /** More lines came during the snapshot than `pending` keeps: the snapshot reads on instead. */
  overflow: boolean;
}

/** Lines kept for one viewer while its snapshot is read; past this it reads another page instead. */
const MAX_PENDING = 10_000;

export class LiveHub {
  private readonly viewers = new Map<string, Set<Viewer>>();
  private readonly stopHeartbeat: () => void;

  constructor(
    private readonly store: CollectorStore,
    private readonly options: LiveOptions,
    /** The clock of heartbeats, share expiry and the waits for a slow viewer (see src/base/scheduler.ts). */
    private readonly scheduler: Scheduler = realScheduler,
  ) {
    store.on({
      append: (id, lines) => this.append(id, lines),
      end: (id, text) => this.end(id, text),
      remove: (id) => this.removed(id),
      shareRevoked: (id) => this.revokeShare(id),
      watches: (id) => this.viewers.has(id),
    });
    this.stopHeartbeat = every(options.heartbeatMs, () => this.beat(), scheduler);
  }

  /**
   * Starts serving a connected viewer: snapshot after `since`, then appends — until `share`, when the socket was
   * opened with a share link, expires or is revoked.
   */
  attach(ws: LiveSocket, trace: { id: string; n: number }, since: number, share?: ShareGrant): void {
    const viewer: Viewer = {
      ws,
      traceId: trace.id,
      n: trace.n,
      state: 'snapshot',
      lastSent: since,
      dropped: 0,
      dropTimer: undefined,
      alive: true,
      share,
      expiry: undefined,
      pending: [],
      overflow: false,
    };
    if (share !== undefined) this.armExpiry(viewer, share);
    let set = this.viewers.get(trace.id);
    if (set === undefined) {
      set = new Set();
      this.viewers.set(trace.id, set);
    }
    set.add(viewer);
    ws.on('pong', () => {
      viewer.alive = true;
    });
    ws.on('close', () => this.detach(viewer));
    ws.on('error', () => ws.terminate());
    this.snapshot(viewer).catch(() => ws.terminate());
  }

  /** Viewers connected right now. */
  get size(): number {
    let total = 0;
    for (const set of this.viewers.values()) total += set.size;
    return total;
  }

  /** Closes every socket opened with the share `id` (it was revoked). */
  revokeShare(id: string): void {
    for (const set of this.viewers.values())
      for (const viewer of set) if (viewer.share?.id === id) viewer.ws.close(4410, 'share revoked');
  }

  close(): void {
    this.stopHeartbeat();
    for (const set of this.viewers.values()) for (const viewer of set) viewer.ws.terminate();
    this.viewers.clear();
  }

  private async snapshot(viewer: Viewer): Promise<void> {
    const { ws } = viewer;
    const page = this.options.snapshotLines;
    while (ws.readyState === OPEN) {
      if (ws.bufferedAmount > this.options.maxBufferedBytes) {
        await delay(10, this.scheduler);
        continue;
      }
      const lines = await this.store.pageLines(viewer.n, viewer.lastSent, page);
      if (ws.readyState !== OPEN) return;
      if (lines.length > 0) this.send(viewer, lines);
      if (lines.length < page && !viewer.overflow) {
        // Caught up. Whatever committed after that read started was announced since, and waits in `pending`.
        viewer.state = 'live';
        const fresh = viewer.pending.filter((line) => line.seq > viewer.lastSent);
        viewer.pending = [];
        if (fresh.length > 0) this.send(viewer, fresh);
        const row = await this.store.get(viewer.traceId);
        if (row?.end_line != null) this.finish(viewer, row.end_line);
        return;
      }
      if (lines.length < page) {
        viewer.overflow = false;
        viewer.pending = [];
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private append(id: string, lines: readonly StoredLine[]): void {
    const set = this.viewers.get(id);
    if (set === undefined) return;
    for (const viewer of set) {
      if (viewer.state === 'snapshot') {
        this.hold(viewer, lines);
        continue;
      }
      if (viewer.ws.readyState !== OPEN) continue;
      const fresh = lines.filter((line) => line.seq > viewer.lastSent);
      if (fresh.length === 0) continue;
      if (fresh[0]!.seq > viewer.lastSent + 1) {
        // Lines may have been committed before these and not told here yet (on a shared database another
        // collector's write is told later than this one's own): read on from the store, as a snapshot does, so
        // the viewer gets them in order.
        viewer.state = 'snapshot';
        this.hold(viewer, fresh);
        this.snapshot(viewer).catch(() => viewer.ws.terminate());
        continue;
      }
      if (viewer.ws.bufferedAmount > this.options.maxBufferedBytes) {
        viewer.dropped += fresh.length;
        viewer.lastSent = fresh[fresh.length - 1]!.seq;
        this.watchDrops(viewer);
        continue;
      }
      this.flushDrops(viewer);
      this.send(viewer, fresh);
    }
  }

  private hold(viewer: Viewer, lines: readonly StoredLine[]): void {
    if (viewer.overflow) return;
    if (viewer.pending.length + lines.length > MAX_PENDING) {
      viewer.overflow = true;
      viewer.pending = [];
      return;
    }
    viewer.pending.push(...lines);
  }

  private end(id: string, endText: string): void {
    for (const viewer of this.viewers.get(id) ?? []) {
      if (viewer.state === 'live') this.finish(viewer, endText);
    }
  }

  private removed(id: string): void {
    for (const viewer of this.viewers.get(id) ?? []) viewer.ws.close(4404, 'trace deleted');
  }

  private finish(viewer: Viewer, endText: string): void {
    this.flushDrops(viewer, true);
    if (viewer.ws.readyState !== OPEN) return;
    viewer.ws.send(`{"type":"end","line":${endText}}`);
    viewer.ws.close(1000, 'end');
  }

  private send(viewer: Viewer, lines: readonly StoredLine[]): void {
    let frame = '{"type":"lines","lines":[';
    for (let i = 0; i < lines.length; i += 1) frame += i === 0 ? lines[i]!.text : `,${lines[i]!.text}`;
    viewer.ws.send(`${frame}]}`);
    viewer.lastSent = lines[lines.length - 1]!.seq;
  }

  /** Tells a viewer how many lines it missed, once its send buffer has room again (or at the end, regardless). */
  private flushDrops(viewer: Viewer, force = false): void {
    if (viewer.dropped === 0 || viewer.ws.readyState !== OPEN) return;
    if (!force && viewer.ws.bufferedAmount > this.options.maxBufferedBytes) return;
    viewer.ws.send(`{"type":"dropped","count":${viewer.dropped}}`);
    viewer.dropped = 0;
  }

  private watchDrops(viewer: Viewer): void {
    if (viewer.dropTimer !== undefined) return;
    const check = () => {
      viewer.dropTimer = undefined;
      if (viewer.dropped === 0 || viewer.ws.readyState !== OPEN) return;
      this.flushDrops(viewer);
      if (viewer.dropped > 0) this.watchDrops(viewer);
    };
    viewer.dropTimer = this.scheduler.setTimeout(check, 25, { unref: true });
  }

  private armExpiry(viewer: Viewer, share: ShareGrant): void {
    const left = share.expiresMs - this.scheduler.now();
    if (left <= 0) {
      viewer.ws.close(4410, 'share expired');
      return;
    }
    viewer.expiry = this.scheduler.setTimeout(
      () => this.armExpiry(viewer, share),
      Math.min(left, MAX_TIMER_MS),
      { unref: true },
    );
  }

  private detach(viewer: Viewer): void {
    this.scheduler.clearTimeout(viewer.dropTimer);
    this.scheduler.clearTimeout(viewer.expiry);
    const set = this.viewers.get(viewer.traceId);
    set?.delete(viewer);
    if (set?.size === 0) this.viewers.delete(viewer.traceId);
  }

  private beat(): void {
    for (const set of this.viewers.values()) {
      for (const viewer of set) {
        if (!viewer.alive) {
          viewer.ws.terminate();
          continue;
        }
        viewer.alive = false;
        viewer.ws.ping();
      }
    }
  }
}
