import type { Hono } from 'hono';
import { ApiError } from './api-error.js';
import { type CollectorContext, requireWrite } from './context.js';
import { type Ctx, type Env, jsonBody, lifetime } from './http.js';
import { COLLECTOR_DEFAULTS } from './options.js';
import { traceSummary } from './queries.js';
import {
  createShare,
  listAllShares,
  listShares,
  resolveShare,
  revokeShare,
  SHARE_ID,
  type ShareRow,
  shareInfo,
} from './shares.js';
import type { TraceRow } from './store.js';
import { jsonlResponse, linesResponse, liveResponse, traceRow, viewerUrl } from './trace-routes.js';

/** Share links: made and revoked with the token, read with the share id alone (documented in routes.ts). */
export function shareRoutes(app: Hono<Env>, ctx: CollectorContext): void {
  const { store } = ctx;

  app.post('/api/v1/traces/:id/shares', async (c) => {
    requireWrite(ctx, c);
    const row = traceRow(ctx, c.req.param('id'));
    const body = await jsonBody(c, ctx.maxJsonBytes);
    const ttl = lifetime(body.expiresIn, COLLECTOR_DEFAULTS.shareTtlMs, COLLECTOR_DEFAULTS.maxShareTtlMs);
    const share = createShare(store, row, ttl, ctx.now());
    return c.json(
      {
        ...shareInfo(share, row.id),
        url: viewerUrl(c, `share=${share.id}`),
        api: `/api/v1/shares/${share.id}`,
      },
      201,
    );
  });

  app.get('/api/v1/traces/:id/shares', (c) => {
    // Share ids are capabilities: listing them is for the token holder only, wherever the collector listens.
    requireWrite(ctx, c);
    return c.json({ shares: listShares(store, traceRow(ctx, c.req.param('id'))) });
  });

  app.get('/api/v1/shares', (c) => {
    requireWrite(ctx, c);
    return c.json({ shares: listAllShares(store) });
  });

  app.delete('/api/v1/shares/:share', (c) => {
    requireWrite(ctx, c);
    const id = shareId(c);
    if (!revokeShare(store, id, ctx.now())) throw new ApiError(404, 'not_found', 'no such share');
    ctx.hub.revokeShare(id);
    return c.json({ revoked: id });
  });

  app.get('/api/v1/shares/:share', (c) => {
    const { share, trace } = shared(ctx, c);
    return c.json({ share: shareInfo(share, trace.id), trace: traceSummary(store, trace) });
  });

  app.get('/api/v1/shares/:share/lines', (c) => linesResponse(ctx, c, shared(ctx, c).trace));
  app.get('/api/v1/shares/:share/trace.jsonl', (c) => jsonlResponse(ctx, shared(ctx, c).trace));
  app.get('/api/v1/shares/:share/live', (c, next) => {
    const { share, trace } = shared(ctx, c);
    return liveResponse(ctx, c, next, trace, { id: share.id, expiresMs: share.expires_ms });
  });
}

function shareId(c: Ctx): string {
  const id = c.req.param('share') ?? '';
  if (!SHARE_ID.test(id))
    throw new ApiError(
      400,
      'bad_id',
      `malformed share id '${id.slice(0, 40)}': expected 32 characters A-Z a-z 0-9 _ -`,
    );
  return id;
}

/** The share and its trace, or 404 (unknown) / 410 (expired, revoked). */
function shared(ctx: CollectorContext, c: Ctx): { share: ShareRow; trace: TraceRow } {
  const found = resolveShare(ctx.store, shareId(c), ctx.now());
  if (found.kind === 'missing')
    throw new ApiError(404, 'not_found', 'no such share (or its trace was deleted)');
  if (found.kind !== 'ok') throw new ApiError(410, 'gone', `this share link was ${found.kind}`);
  return { share: found.share, trace: found.trace };
}
