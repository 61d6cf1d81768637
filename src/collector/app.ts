import { dirname } from 'node:path';
import { upgradeWebSocket } from '@hono/node-server';
import type { Hono } from 'hono';
import type { UpgradeWebSocket } from 'hono/ws';
import { hostName, isLoopback } from '../base/local-names.js';
import { every, realScheduler } from '../base/scheduler.js';
import type { LineIndexer } from './columns.js';
import type { CollectorContext } from './context.js';
import { openDatabase } from './database.js';
import type { Env } from './http.js';
import { LiveHub } from './live.js';
import { COLLECTOR_DEFAULTS, type CollectorOptions } from './options.js';
import { TokenBuckets } from './rate-limit.js';
import { applyRetention, type RetentionResult } from './retention.js';
import { createApp } from './routes.js';
import { Slots } from './slots.js';
import { TraceStore } from './store.js';
import { viewerDir } from './viewer-files.js';

/** A collector without its listener: the store, the live hub and the Hono app that serves them. */
export interface CollectorApp {
  /** The whole API and the viewer's files; `app.request(path, init)` answers in process, with no socket. */
  app: Hono<Env>;
  store: TraceStore;
  hub: LiveHub;
  token: string;
  dbPath: string;
  host: string;
  /** Uploads dropped at open because they were never acknowledged (the collector stopped mid-upload). */
  unfinishedRemoved: number;
  /** Runs retention now (it also runs at open and every `retention.intervalMs`). */
  retain(): RetentionResult;
  /** Stops retention and the hub (every live socket is cut) and closes the database. */
  close(): void;
}

/**
 * Opens the collector's state and its app: the database (never-acknowledged uploads dropped), retention (at once
 * and on a timer), the live hub and the routes. startCollector serves it on a socket; tests call its routes in
 * process with `app.request`.
 *
 * @example
 * const collector = openCollectorApp({ dbPath: join(dir, 'tapedeck.db'), token });
 * const health = await collector.app.request('/api/v1/health', { headers: { host: '127.0.0.1' } });
 * collector.close();
 */
export function openCollectorApp(options: CollectorOptions): CollectorApp {
  const scheduler = options.scheduler ?? realScheduler;
  const now = options.now ?? (() => scheduler.now());
  const host = options.host ?? COLLECTOR_DEFAULTS.host;
  const db = openDatabase(options.dbPath);
  const store = new TraceStore(db, now);
  const unfinishedRemoved = store.removeUnfinished();
  const retention = { ...COLLECTOR_DEFAULTS.retention, ...options.retention };
  const retain = () => applyRetention(store, retention, now());
  retain();
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
    spoolDir: dirname(options.dbPath),
    viewerDir: options.viewerDir ?? viewerDir(),
    now,
    indexers: new Map<number, LineIndexer>(),
    upgradeWebSocket: upgradeWebSocket as unknown as UpgradeWebSocket,
  };
  const stopRetention = every(
    retention.intervalMs,
    () => {
      try {
        retain();
      } catch {
        // A busy database (another process writing) tries again at the next interval.
      }
    },
    scheduler,
  );
  let closed = false;
  return {
    app: createApp(ctx),
    store,
    hub,
    token: options.token,
    dbPath: options.dbPath,
    host,
    unfinishedRemoved,
    retain,
    close() {
      if (closed) return;
      closed = true;
      stopRetention();
      hub.close();
      db.close();
    },
  };
}
