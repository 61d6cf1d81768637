import { dirname } from 'node:path';
import { upgradeWebSocket } from '@hono/node-server';
import type { Hono } from 'hono';
import type { UpgradeWebSocket } from 'hono/ws';
import { hostName, isLoopback } from '../base/local-names.js';
import { every, realScheduler } from '../base/scheduler.js';
import type { LineIndexer } from './columns.js';
import type { CollectorContext } from './context.js';
import type { Env } from './http.js';
import { LiveHub } from './live.js';
import { openSqliteStore } from './open-store.js';
import { COLLECTOR_DEFAULTS, type CollectorOptions } from './options.js';
import { TokenBuckets } from './rate-limit.js';
import type { RetentionResult } from './retention.js';
import { createApp } from './routes.js';
import { Slots } from './slots.js';
import type { CollectorStore } from './store.js';
import { viewerDir } from './viewer-files.js';

/** A collector without its listener: the store, the live hub and the Hono app that serves them. */
export interface CollectorApp {
  /** The whole API and the viewer's files; `app.request(path, init)` answers in process, with no socket. */
  app: Hono<Env>;
  store: CollectorStore;
  hub: LiveHub;
  token: string;
  /** The SQLite file or the Postgres host and database (no password). */
  dbPath: string;
  host: string;
  /** Runs retention now (it also runs every `retention.intervalMs`); undefined when another collector runs it. */
  retain(): Promise<RetentionResult | undefined>;
  /** Drops uploads never acknowledged (their collector stopped mid-upload) and applies retention: at start. */
  start(): Promise<{ unfinishedRemoved: number }>;
  /** Stops retention and the hub (every live socket is cut) and closes the database. */
  close(): Promise<void>;
}

/** An upload idle this long on a shared database was cut off (its collector stopped): dropped at start. */
const UNFINISHED_IDLE_MS = 10 * 60 * 1000;

/**
 * Opens the collector's state and its app: the store (`options.store`, else the SQLite file `dbPath`), retention
 * on a timer, the live hub and the routes; `start()` drops never-acknowledged uploads and applies retention once.
 * startCollector serves it on a socket; tests call its routes in process with `app.request`.
 *
 * @example
 * const collector = openCollectorApp({ dbPath: join(dir, 'tapedeck.db'), token }); await collector.start();
 * const health = await collector.app.request('/api/v1/health', { headers: { host: '127.0.0.1' } });
 * await collector.close();
 */
export function openCollectorApp(options: CollectorOptions): CollectorApp {
  const scheduler = options.scheduler ?? realScheduler;
  const now = options.now ?? (() => scheduler.now());
  const host = options.host ?? COLLECTOR_DEFAULTS.host;
  const store = options.store ?? openSqliteStore(options.dbPath, now);
  const retention = { ...COLLECTOR_DEFAULTS.retention, ...options.retention };
  const retain = () => store.retain(retention, now());
  const uploads = { ...COLLECTOR_DEFAULTS.uploads, ...options.uploads };
  const hub = new LiveHub(store, { ...COLLECTOR_DEFAULTS.live, ...options.live }, scheduler);
  const allowHosts = new Set((options.allowHosts ?? []).map((name) => hostName(name)));
  const wildcard = host === '0.0.0.0' || host === '::';
  if (!isLoopback(host) && !wildcard) allowHosts.add(hostName(host.includes(':') ? `[${host}]` : host));
  const ctx: CollectorContext = {
    store,
    hub,
    token: options.token,
    readNeedsToken: options.requireReadToken ?? !isLoopback(host),
    allowHosts,
    buckets: new TokenBuckets(options.rateLimit ?? COLLECTOR_DEFAULTS.rateLimit, now),
    maxBodyBytes: options.maxBodyBytes ?? COLLECTOR_DEFAULTS.maxBodyBytes,
    maxJsonBytes: COLLECTOR_DEFAULTS.maxJsonBytes,
    batchLines: COLLECTOR_DEFAULTS.batchLines,
    uploads,
    slots: new Slots(uploads.concurrent),
    spoolDir: options.spoolDir ?? dirname(options.dbPath),
    viewerDir: options.viewerDir ?? viewerDir(),
    now,
    knownTeamTokens: new Map<string, number>(),
    indexers: new Map<number, LineIndexer>(),
    upgradeWebSocket: upgradeWebSocket as unknown as UpgradeWebSocket,
  };
  const stopRetention = every(
    retention.intervalMs,
    () => {
      // A busy or unreachable database tries again at the next interval.
      retain().catch(() => {});
    },
    scheduler,
  );
  let closed = false;
  return {
    app: createApp(ctx),
    store,
    hub,
    token: options.token,
    dbPath: store.location,
    host,
    retain,
    async start() {
      const unfinishedRemoved = await store.removeUnfinished(UNFINISHED_IDLE_MS);
      await retain();
      return { unfinishedRemoved };
    },
    async close() {
      if (closed) return;
      closed = true;
      stopRetention();
      hub.close();
      await store.close();
    },
  };
}
