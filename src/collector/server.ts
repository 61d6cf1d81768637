import type { Server } from 'node:http';
import { dirname } from 'node:path';
import { createAdaptorServer, type WebSocketServerLike } from '@hono/node-server';
import { WebSocketServer } from 'ws';
import { TapedeckError } from '../base/errors.js';
import { defaultDbPath } from '../base/paths.js';
import { openCollectorApp } from './app.js';
import { LIVE_PROTOCOL } from './guard.js';
import { openStore } from './open-store.js';
import { COLLECTOR_DEFAULTS, type CollectorOptions } from './options.js';
import { isPostgresUrl } from './postgres-connect.js';
import type { RetentionResult } from './retention.js';
import type { CollectorStore } from './store.js';

/** A running collector. */
export interface Collector {
  /** `http://host:port`, the port resolved when 0 was asked for. */
  url: string;
  host: string;
  port: number;
  token: string;
  dbPath: string;
  /** @internal the store behind the API */
  store: CollectorStore;
  /** Uploads dropped at start because they were never acknowledged (the collector stopped mid-upload). */
  unfinishedRemoved: number;
  /** Runs retention now (it also runs at start and every `retention.intervalMs`); undefined when another collector on the same database runs it. */
  retain(): Promise<RetentionResult | undefined>;
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
  const postgres = options.store === undefined && isPostgresUrl(options.dbPath);
  const store = postgres ? await openStore(options.dbPath, options.now) : options.store;
  const opened = openCollectorApp({
    ...options,
    ...(store === undefined ? {} : { store }),
    ...(postgres ? { spoolDir: options.spoolDir ?? dirname(defaultDbPath()) } : {}),
  });
  const { host } = opened;
  let unfinishedRemoved: number;
  try {
    ({ unfinishedRemoved } = await opened.start());
  } catch (err) {
    await opened.close();
    throw err;
  }
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 64 * 1024,
    handleProtocols: (protocols) => (protocols.has(LIVE_PROTOCOL) ? LIVE_PROTOCOL : false),
  });
  const server = createAdaptorServer({
    fetch: opened.app.fetch,
    hostname: host,
    websocket: { server: wss as unknown as WebSocketServerLike },
  }) as Server;
  try {
    await listen(server, options.port ?? COLLECTOR_DEFAULTS.port, host);
  } catch (err) {
    await opened.close();
    throw err;
  }
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : (options.port ?? 0);
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    host,
    port,
    token: options.token,
    dbPath: opened.dbPath,
    store: opened.store,
    unfinishedRemoved,
    retain: opened.retain,
    close() {
      closing ??= (async () => {
        opened.hub.close();
        wss.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await opened.close();
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
