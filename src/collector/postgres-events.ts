import type { Notification, Pool, PoolClient } from 'pg';
import type { Sql } from './queries.js';
import type { StoredLine, StoreEvents, WriteResult } from './store.js';

/**
 * Committed changes, told to every collector on one Postgres database. A write announces itself with NOTIFY in
 * its own transaction, so the announcement goes out only if it commits, and in commit order. A payload holds
 * 8000 bytes at most, so it names the lines (trace, first and last seq) and a collector that hears it reads them
 * back — only when one of its viewers watches that trace. The collector that wrote tells its own listeners
 * directly and skips its own announcements (each names its origin).
 */

/** What one announcement says. */
type Announcement =
  | { o?: string; e: 'append'; id: string; n: number; from: number; to: number; end: boolean }
  | { o?: string; e: 'remove'; id: string }
  | { o?: string; e: 'share'; id: string };

/** How long to wait before listening again after the listening connection is lost. */
const RECONNECT_MS = 1000;

export class PostgresEvents {
  private readonly listeners: Partial<StoreEvents>[] = [];
  private readonly origin = Math.random().toString(36).slice(2, 12);
  /** Per trace: the announcements being handled, one after the other. */
  private readonly chains = new Map<string, Promise<void>>();
  private client: PoolClient | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly channel: string,
    private readonly read: (sql: Sql) => Promise<unknown[]>,
  ) {}

  on(listener: Partial<StoreEvents>): void {
    this.listeners.push(listener);
  }

  /** Holds one connection of the pool that LISTENs; when it is lost, listens again on a new one. */
  async start(): Promise<void> {
    const client = await this.pool.connect();
    client.on('notification', (message) => this.heard(message));
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      client.release(true);
      if (!this.stopped) this.retry = setTimeout(() => this.restart(), RECONNECT_MS);
    };
    client.on('error', lost);
    client.on('end', lost);
    await client.query(`LISTEN ${this.channel}`);
    this.client = client;
  }

  private restart(): void {
    this.retry = undefined;
    if (this.stopped) return;
    this.start().catch(() => {
      if (!this.stopped) this.retry = setTimeout(() => this.restart(), RECONNECT_MS);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) {
      await client.query(`UNLISTEN ${this.channel}`).catch(() => {});
      client.release();
    }
    await Promise.all(this.chains.values());
  }

  /**
   * The NOTIFY that announces a write (channel and payload), for the writer to send inside its transaction; undefined
   * when the write stored nothing and ended nothing.
   */
  writeNotice(id: string, n: number, result: WriteResult): { channel: string; payload: string } | undefined {
    const first = result.stored[0];
    const last = result.stored[result.stored.length - 1];
    if (first === undefined && result.ended === undefined) return undefined;
    const said: Announcement = {
      e: 'append',
      id,
      n,
      from: first?.seq ?? 0,
      to: last?.seq ?? -1,
      end: result.ended !== undefined,
      o: this.origin,
    };
    return { channel: this.channel, payload: JSON.stringify(said) };
  }

  async announce(client: PoolClient, message: Announcement): Promise<void> {
    await client.query('SELECT pg_notify($1, $2)', [
      this.channel,
      JSON.stringify({ ...message, o: this.origin }),
    ]);
  }

  /** Tells this collector's listeners of its own committed write. */
  local(id: string, result: WriteResult): void {
    if (result.stored.length > 0) this.emitLocal((l) => l.append?.(id, result.stored));
    if (result.ended !== undefined) {
      const ended = result.ended;
      this.emitLocal((l) => l.end?.(id, ended));
    }
  }

  emitLocal(call: (listener: Partial<StoreEvents>) => void): void {
    for (const listener of this.listeners) call(listener);
  }

  private heard(message: Notification): void {
    if (message.channel !== this.channel || message.payload === undefined) return;
    let said: Announcement;
    try {
      said = JSON.parse(message.payload) as Announcement;
    } catch {
      return;
    }
    if (said.o === this.origin) return;
    if (said.e === 'share') {
      this.emitLocal((l) => l.shareRevoked?.(said.id));
      return;
    }
    if (said.e === 'remove') {
      this.queue(said.id, async () => this.emitLocal((l) => l.remove?.(said.id)));
      return;
    }
    if (!this.watched(said.id)) return;
    this.queue(said.id, () => this.replay(said));
  }

  private watched(id: string): boolean {
    return this.listeners.some((l) => l.watches === undefined || l.watches(id));
  }

  /** Reads back the lines (and end line) one announcement names, and tells the listeners. */
  private async replay(said: Extract<Announcement, { e: 'append' }>): Promise<void> {
    if (said.to >= said.from) {
      const lines = (await this.read({
        text: 'SELECT seq, text FROM lines WHERE trace = ? AND seq >= ? AND seq <= ? ORDER BY seq',
        params: [said.n, said.from, said.to],
      })) as StoredLine[];
      if (lines.length > 0) this.emitLocal((l) => l.append?.(said.id, lines));
    }
    if (said.end) {
      const rows = (await this.read({
        text: 'SELECT end_line FROM traces WHERE n = ?',
        params: [said.n],
      })) as {
        end_line: string | null;
      }[];
      const end = rows[0]?.end_line;
      if (end != null) this.emitLocal((l) => l.end?.(said.id, end));
    }
  }

  private queue(id: string, work: () => Promise<void>): void {
    const previous = this.chains.get(id) ?? Promise.resolve();
    const next = previous.then(work).catch(() => {
      // A read that failed (the database went away) leaves the viewer to catch up when it reconnects with since=.
    });
    this.chains.set(id, next);
    void next.then(() => {
      if (this.chains.get(id) === next) this.chains.delete(id);
    });
  }
}
