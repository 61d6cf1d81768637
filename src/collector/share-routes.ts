import type { Hono } from 'hono';
import { ApiError } from './api-error.js';
import { type CollectorContext, requireWrite } from './context.js';
import { type Ctx, type Env, jsonBody, lifetime } from './http.js';
import { COLLECTOR_DEFAULTS } from './options.js';
import { traceSummary } from './queries.js';
import { SHARE_ID, type ShareRow, shareInfo } from './shares.js';
import type { TraceRow } from './store.js';
import { jsonlResponse, linesResponse, liveResponse, traceRow, viewerUrl } from './trace-routes.js';

/** Share links: made and revoked with the token, read with the share id alone (documented in routes.ts). */
export function shareRoutes(app: Hono<Env>, ctx: CollectorContext): void {
  const { store } = ctx;

  app.post('/api/v1/traces/:id/shares', async (c) => {
    await requireWrite(ctx, c);
    const row = await traceRow(ctx, c.req.param('id'));
    const body = await jsonBody(c, ctx.maxJsonBytes);
    const ttl = lifetime(body.expiresIn, COLLECTOR_DEFAULTS.shareTtlMs, COLLECTOR_DEFAULTS.maxShareTtlMs);
    const share = await store.createShare(row, ttl, ctx.now());
    return c.json(
      {
        ...shareInfo(share, row.id),
        url: viewerUrl(c, `share=${share.id}`),
        api: `/api/v1/shares/${share.id}`,
      },
      201,
    );
  });

  app.get('/api/v1/traces/:id/shares', async (c) => {
    // Share ids are capabilities: listing them is for the token holder only, wherever the collector listens.
    await requireWrite(ctx, c);
    return c.json({ shares: await store.listShares(await traceRow(ctx, c.req.param('id'))) });
  });

  app.get('/api/v1/shares', async (c) => {
    await requireWrite(ctx, c);
    return c.json({ shares: await store.listAllShares() });
  });

  app.delete('/api/v1/shares/:share', async (c) => {
    await requireWrite(ctx, c);
    const id = shareId(c);
    // The store tells the live hub (of every collector on its database), which closes the share's sockets.
    if (!(await store.revokeShare(id, ctx.now()))) throw new ApiError(404, 'not_found', 'no such share');
    return c.json({ revoked: id });
  });

  app.get('/api/v1/shares/:share', async (c) => {
    const { share, trace } = await shared(ctx, c);
    return c.json({ share: shareInfo(share, trace.id), trace: await traceSummary(store, trace) });
  });

  app.get('/api/v1/shares/:share/lines', async (c) => linesResponse(ctx, c, (await shared(ctx, c)).trace));
  app.get('/api/v1/shares/:share/trace.jsonl', async (c) => jsonlResponse(ctx, (await shared(ctx, c)).trace));
  app.get('/api/v1/shares/:share/live', async (c, next) => {
    const { share, trace } = await shared(ctx, c);
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
async function shared(ctx: CollectorContext, c: Ctx): Promise<{ share: ShareRow; trace: TraceRow }> {
  const found = await ctx.store.resolveShare(shareId(c), ctx.now());
  if (found.kind === 'missing')
    throw new ApiError(404, 'not_found', 'no such share (or its trace was deleted)');
  if (found.kind !== 'ok') throw new ApiError(410, 'gone', `this share link was ${found.kind}`);
  return { share: found.share, trace: found.trace };
}
