import type { UpgradeWebSocket } from 'hono/ws';
import { ApiError } from './api-error.js';
import type { LineIndexer } from './columns.js';
import { hasToken, type PresentedToken, presentedSecrets } from './guard.js';
import type { Ctx } from './http.js';
import type { LiveHub } from './live.js';
import type { UploadLimits } from './options.js';
import type { TokenBuckets } from './rate-limit.js';
import type { Slots } from './slots.js';
import type { CollectorStore } from './store.js';
import { tokenHash } from './tokens.js';

/**
 * What every route works with, and the token checks each route applies for itself: the app (routes.ts) and the
 * route groups (trace-routes.ts, share-routes.ts) share these without importing each other.
 */

/** What the routes work with. */
export interface CollectorContext {
  store: CollectorStore;
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
  /** Team tokens seen valid lately (hash → until when), to pick their rate-limit bucket without the database. */
  knownTeamTokens: Map<string, number>;
  /** Column state of live traces between appends, by trace key. */
  indexers: Map<number, LineIndexer>;
  upgradeWebSocket: UpgradeWebSocket;
}

/** Writes need the token or a team write token; 401 otherwise. */
export async function requireWrite(ctx: CollectorContext, c: Ctx): Promise<void> {
  if (!(await allowed(ctx, { authorization: c.req.header('authorization') }, 'write'))) throw unauthorized(c);
}

/**
 * Reads need a token only on a non-loopback address (the collector's, or a team read or write token); websockets
 * may carry it as a query or subprotocol.
 */
export async function requireRead(ctx: CollectorContext, c: Ctx, websocket = false): Promise<void> {
  if (!ctx.readNeedsToken) return;
  const presented = websocket
    ? {
        authorization: c.req.header('authorization'),
        query: c.req.query('token'),
        protocols: c.req.header('sec-websocket-protocol'),
      }
    : { authorization: c.req.header('authorization') };
  if (!(await allowed(ctx, presented, 'read'))) throw unauthorized(c);
}

/** How long a team token found valid picks its own bucket before the store is asked again. */
const KNOWN_TOKEN_MS = 60_000;
/** Team tokens remembered at most; past it the memory starts over. */
const MAX_KNOWN_TOKENS = 10_000;

/**
 * Takes a token from the rate-limit bucket of a request: per address, one bucket for the collector's token, one
 * per team token and one for everything else (a made-up team token included). Returns 0 to go ahead, else the
 * seconds to wait. A team token seen valid lately picks its bucket without the store; only the bucket is chosen
 * here: whether the token may do what it asks is checked for every request, so a revoke takes effect at once.
 *
 * @example const wait = await takeBucket(ctx, presented, '127.0.0.1');
 */
export async function takeBucket(
  ctx: CollectorContext,
  presented: PresentedToken,
  address: string,
): Promise<number> {
  if (hasToken(presented, ctx.token)) return ctx.buckets.take(`${address} token`);
  const now = ctx.now();
  for (const secret of presentedSecrets(presented)) {
    if (!secret.startsWith('tdk_')) continue;
    const hash = tokenHash(secret);
    if ((ctx.knownTeamTokens.get(hash) ?? 0) <= now) {
      if ((await ctx.store.tokenScope(secret, now)) === undefined) continue;
      if (ctx.knownTeamTokens.size >= MAX_KNOWN_TOKENS) ctx.knownTeamTokens.clear();
      ctx.knownTeamTokens.set(hash, now + KNOWN_TOKEN_MS);
    }
    return ctx.buckets.take(`${address} team ${hash}`);
  }
  return ctx.buckets.take(`${address} anonymous`);
}

/** The collector's own token first (no database round trip), then the team tokens in the store. */
async function allowed(
  ctx: CollectorContext,
  presented: PresentedToken,
  need: 'read' | 'write',
): Promise<boolean> {
  if (hasToken(presented, ctx.token)) return true;
  for (const secret of presentedSecrets(presented)) {
    if (!secret.startsWith('tdk_')) continue;
    const scope = await ctx.store.tokenScope(secret, ctx.now());
    if (scope === 'write' || scope === need) return true;
  }
  return false;
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
