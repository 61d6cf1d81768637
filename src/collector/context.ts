import type { UpgradeWebSocket } from 'hono/ws';
import { ApiError } from './api-error.js';
import type { LineIndexer } from './columns.js';
import { hasToken } from './guard.js';
import type { Ctx } from './http.js';
import type { LiveHub } from './live.js';
import type { UploadLimits } from './options.js';
import type { TokenBuckets } from './rate-limit.js';
import type { Slots } from './slots.js';
import type { TraceStore } from './store.js';

/**
 * What every route works with, and the token checks each route applies for itself: the app (routes.ts) and the
 * route groups (trace-routes.ts, share-routes.ts) share these without importing each other.
 */

/** What the routes work with. */
export interface CollectorContext {
  store: TraceStore;
  hub: LiveHub;
  token: string;
  /** Reads need the token too (the collector is bound to a non-loopback address). */
  readNeedsToken: boolean;
  allowHosts: ReadonlySet<string>;
  buckets: TokenBuckets;
  maxBodyBytes: number;
  maxJsonBytes: number;
  batchLines: number;
  uploads: UploadLimits;
  /** Large uploads and appends being ingested: at most `uploads.concurrent` at once. */
  slots: Slots;
  /** Where uploads in formats that need a second pass are spooled (the database's folder). */
  spoolDir: string;
  viewerDir: string;
  now: () => number;
  /** Column state of live traces between appends, by trace key. */
  indexers: Map<number, LineIndexer>;
  upgradeWebSocket: UpgradeWebSocket;
}

/** Writes need the token; 401 otherwise. */
export function requireWrite(ctx: CollectorContext, c: Ctx): void {
  if (!hasToken({ authorization: c.req.header('authorization') }, ctx.token)) throw unauthorized(c);
}

/** Reads need the token only on a non-loopback address; websockets may carry it as a query or subprotocol. */
export function requireRead(ctx: CollectorContext, c: Ctx, websocket = false): void {
  if (!ctx.readNeedsToken) return;
  const presented = websocket
    ? {
        authorization: c.req.header('authorization'),
        query: c.req.query('token'),
        protocols: c.req.header('sec-websocket-protocol'),
      }
    : { authorization: c.req.header('authorization') };
  if (!hasToken(presented, ctx.token)) throw unauthorized(c);
}

function unauthorized(c: Ctx): ApiError {
  const presented = c.req.header('authorization') !== undefined;
  return new ApiError(
    401,
    'unauthorized',
    presented
      ? 'the token is wrong: use the one in <tapedeck home>/token (Authorization: Bearer <token>)'
      : 'this needs the collector token: send Authorization: Bearer <token> (the token is in <tapedeck home>/token)',
    {},
    { 'www-authenticate': 'Bearer realm="tapedeck"' },
  );
}
