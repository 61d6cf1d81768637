import type { Server } from 'node:http';
import { dirname } from 'node:path';
import { createAdaptorServer, upgradeWebSocket, type WebSocketServerLike } from '@hono/node-server';
import type { UpgradeWebSocket } from 'hono/ws';
import { WebSocketServer } from 'ws';
import { TapedeckError } from '../errors.js';
import { hostName } from '../local-names.js';
import type { LineIndexer } from './columns.js';
import type { CollectorContext } from './context.js';
import { openDatabase } from './database.js';
import { LIVE_PROTOCOL } from './guard.js';
import { LiveHub } from './live.js';
import { COLLECTOR_DEFAULTS, type CollectorOptions, isLoopback } from './options.js';
import { TokenBuckets } from './rate-limit.js';
import { applyRetention, type RetentionResult } from './retention.js';
import { createApp } from './routes.js';
import { Slots } from './slots.js';
import { TraceStore } from './store.js';
import { viewerDir } from './viewer-files.js';

/** A running collector. */
export interface Collector {
  /** `http://host:port`, the port resolved when 0 was asked for. */
  url: string;
  host: string;
  port: number;
  token: string;
  dbPath: string;
  store: TraceStore;
  /** Uploads dropped at start because they were never acknowledged (the collector stopped mid-upload). */
  unfinishedRemoved: number;
  /** Runs retention now (it also runs at start and every `retention.intervalMs`). */
  retain(): RetentionResult;
  /** Stops listening, closes every connection and the database. */
  close(): Promise<void>;
}

/**
 * Starts the collector: opens the database, drops never-acknowledged uploads, applies retention, and listens —
 * HTTP API, live websocket (ws, on the same server) and the viewer's files — on `host:port`.
 *
 * @example
 * const collector = await startCollector({ dbPath: defaultDbPath(), token: loadOrCreateToken(tokenPath()), port: 0 });
 * console.error(`collector on ${collector.url}`); … await collector.close();
 */
export async function startCollector(options: CollectorOptions): Promise<Collector> {
  const now = options.now ?? Date.now;
  const host = options.host ?? COLLECTOR_DEFAULTS.host;
  const db = openDatabase(options.dbPath);
  const store = new TraceStore(db, now);
  const unfinishedRemoved = store.removeUnfinished();
  const retention = { ...COLLECTOR_DEFAULTS.retention, ...options.retention };
  const retain = () => applyRetention(store, retention, now());
  retain();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 64 * 1024,
    handleProtocols: (protocols) => (protocols.has(LIVE_PROTOCOL) ? LIVE_PROTOCOL : false),
  });
  const uploads = { ...COLLECTOR_DEFAULTS.uploads, ...options.uploads };
  const hub = new LiveHub(store, { ...COLLECTOR_DEFAULTS.live, ...options.live }, now);
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
  const app = createApp(ctx);
  const server = createAdaptorServer({
    fetch: app.fetch,
    hostname: host,
    websocket: { server: wss as unknown as WebSocketServerLike },
  }) as Server;
  try {
    await listen(server, options.port ?? COLLECTOR_DEFAULTS.port, host);
  } catch (err) {
    hub.close();
    db.close();
    throw err;
  }
  const timer = setInterval(() => {
    try {
      retain();
    } catch {
      // A busy database (another process writing) tries again at the next interval.
    }
  }, retention.intervalMs);
  timer.unref();
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : (options.port ?? 0);
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    host,
    port,
    token: options.token,
    dbPath: options.dbPath,
    store,
    unfinishedRemoved,
    retain,
    close() {
      closing ??= (async () => {
        clearInterval(timer);
        hub.close();
        wss.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        db.close();
      })();
      return closing;
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => {
      const why =
        err.code === 'EADDRINUSE'
          ? 'the address is in use (is another collector running? pick another --port)'
          : err.code === 'EADDRNOTAVAIL'
            ? 'no such address on this machine'
            : err.message;
      reject(new TapedeckError('io', `cannot listen on ${host}:${port}: ${why}`));
    };
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}
