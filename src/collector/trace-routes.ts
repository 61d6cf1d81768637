import type { Hono, Next } from 'hono';
import type { WebSocket } from 'ws';
import { TRACE_FORMATS } from '../trace/import/opened.js';
import { ApiError } from './api-error.js';
import { LineIndexer } from './columns.js';
import { type CollectorContext, requireRead, requireWrite } from './context.js';
import {
  bodyChunks,
  type Ctx,
  type Env,
  jsonBody,
  queryBool,
  queryChoice,
  queryLimit,
  querySeq,
  queryText,
  queryTime,
} from './http.js';
import { ingestJsonl } from './ingest.js';
import type { ShareGrant } from './live.js';
import { COLLECTOR_DEFAULTS } from './options.js';
import { traceSummaries, traceSummary } from './queries.js';
import { TRACE_ID, type TraceRow } from './store.js';
import { ingestUpload } from './upload.js';

/** The /api/v1/traces routes (documented in routes.ts). */
export function traceRoutes(app: Hono<Env>, ctx: CollectorContext): void {
  const { store } = ctx;

  app.get('/api/v1/traces', async (c) => {
    await requireRead(ctx, c);
    const { rows, next } = await store.search({
      label: queryText(c, 'label'),
      server: queryText(c, 'server'),
      tool: queryText(c, 'tool'),
      method: queryText(c, 'method'),
      from: queryTime(c, 'from'),
      to: queryTime(c, 'to'),
      errors: queryBool(c, 'errors'),
      state: queryChoice(c, 'state', ['live', 'complete'] as const),
      before: c.req.query('before') === undefined ? undefined : querySeq(c, 'before', 0),
      limit: queryLimit(c, 50, 500),
    });
    return c.json({ traces: await traceSummaries(store, rows), next });
  });

  app.post('/api/v1/traces', (c) => uploadTrace(ctx, c));

  app.post('/api/v1/traces/live', async (c) => {
    await requireWrite(ctx, c);
    const body = await jsonBody(c, ctx.maxJsonBytes);
    if (body.label !== undefined && typeof body.label !== 'string')
      throw new ApiError(400, 'bad_request', `label must be a string; got ${JSON.stringify(body.label)}`);
    const row = await store.create({ format: 'tapedeck', state: 'live', label: body.label?.slice(0, 500) });
    return c.json(
      { id: row.id, url: viewerUrl(c, `trace=${row.id}`), trace: await traceSummary(store, row) },
      201,
    );
  });

  app.post('/api/v1/traces/:id/lines', (c) => appendLines(ctx, c, c.req.param('id')));

  app.get('/api/v1/traces/:id', async (c) => {
    await requireRead(ctx, c);
    return c.json(await traceSummary(store, await traceRow(ctx, c.req.param('id'))));
  });

  app.get('/api/v1/traces/:id/lines', async (c) => {
    await requireRead(ctx, c);
    return linesResponse(ctx, c, await traceRow(ctx, c.req.param('id')));
  });

  app.get('/api/v1/traces/:id/trace.jsonl', async (c) => {
    await requireRead(ctx, c);
    return jsonlResponse(ctx, await traceRow(ctx, c.req.param('id')));
  });

  app.get('/api/v1/traces/:id/live', async (c, next) => {
    await requireRead(ctx, c, true);
    return liveResponse(ctx, c, next, await traceRow(ctx, c.req.param('id')));
  });

  app.delete('/api/v1/traces/:id', async (c) => {
    await requireWrite(ctx, c);
    const row = await traceRow(ctx, c.req.param('id'));
    await store.remove(row);
    ctx.indexers.delete(row.n);
    return c.json({ deleted: row.id });
  });
}

/** POST /api/v1/traces: a whole trace in the body, stored once it is all read (nothing of it stays on failure). */
async function uploadTrace(ctx: CollectorContext, c: Ctx): Promise<Response> {
  const { store } = ctx;
  await requireWrite(ctx, c);
  const format = queryChoice(c, 'format', TRACE_FORMATS);
  const label = queryText(c, 'label');
  const release = await slotFor(ctx, c);
  const row = await store.create({ format: format ?? 'tapedeck', state: 'uploading', label });
  try {
    const target = {
      store,
      n: row.n,
      mode: 'upload' as const,
      indexer: new LineIndexer(),
      batchLines: ctx.batchLines,
      batchBytes: ctx.uploads.batchBytes,
    };
    const result = await ingestUpload(bodyChunks(c, ctx.maxBodyBytes), target, {
      spoolDir: ctx.spoolDir,
      format,
      maxLineBytes: ctx.uploads.maxLineBytes,
      maxDocumentBytes: ctx.uploads.maxLineBytes,
    });
    const stored = await store.get(row.id);
    if (stored === undefined || (stored.meta === null && stored.line_count === 0 && stored.end_line === null))
      throw new ApiError(400, 'bad_request', 'the body holds no trace lines');
    // A client that converted the trace before sending (push does) names the format it came in.
    const shownFormat = queryChoice(c, 'sourceFormat', TRACE_FORMATS) ?? result.format;
    await store.completeUpload(row.n, shownFormat);
    const done = (await store.get(row.id))!;
    return c.json(
      {
        id: row.id,
        lines: done.line_count,
        format: shownFormat,
        skipped: result.skipped,
        warnings: result.warnings,
        url: viewerUrl(c, `trace=${row.id}`),
        trace: await traceSummary(store, done),
      },
      201,
    );
  } catch (err) {
    // Never acknowledged: nothing of it stays.
    await store.remove(row);
    throw err;
  } finally {
    release();
  }
}

/** POST /api/v1/traces/:id/lines: JSONL lines appended to a live trace. */
async function appendLines(ctx: CollectorContext, c: Ctx, id: string): Promise<Response> {
  const { store } = ctx;
  await requireWrite(ctx, c);
  const row = await traceRow(ctx, id);
  if (row.state !== 'live') {
    throw new ApiError(
      409,
      'conflict',
      `trace ${row.id} is not live (it is ${row.state}): lines can only be appended to a trace made with POST /api/v1/traces/live before its end line`,
    );
  }
  let indexer = ctx.indexers.get(row.n);
  if (indexer === undefined) {
    indexer = new LineIndexer();
    ctx.indexers.set(row.n, indexer);
  }
  const target = {
    store,
    n: row.n,
    mode: 'append' as const,
    indexer,
    batchLines: ctx.batchLines,
    batchBytes: ctx.uploads.batchBytes,
  };
  const release = await slotFor(ctx, c);
  let result: Awaited<ReturnType<typeof ingestJsonl>>;
  try {
    result = await ingestJsonl(bodyChunks(c, ctx.maxBodyBytes), target, ctx.uploads.maxLineBytes);
  } finally {
    release();
  }
  const after = await store.get(row.id);
  if (after === undefined || after.state !== 'live') ctx.indexers.delete(row.n);
  return c.json({
    appended: result.lines,
    duplicates: result.duplicates,
    skipped: result.skipped,
    lastSeq: after?.last_seq ?? row.last_seq,
    ended: after?.end_line != null,
  });
}

/**
 * A slot for a large body (over `uploads.largeBytes`, or of undeclared length), waited for with the body unread;
 * a small body of a declared length needs none.
 */
async function slotFor(ctx: CollectorContext, c: Ctx): Promise<() => void> {
  const declared = Number(c.req.header('content-length') ?? Number.NaN);
  if (declared <= ctx.uploads.largeBytes) return () => {};
  return ctx.slots.take();
}

/** The trace an id names: 400 for a malformed id, 404 for an unknown one. */
export async function traceRow(ctx: CollectorContext, id: string): Promise<TraceRow> {
  if (!TRACE_ID.test(id))
    throw new ApiError(
      400,
      'bad_id',
      `malformed trace id '${id.slice(0, 40)}': expected 16 characters A-Z a-z 0-9 _ -`,
    );
  const row = await ctx.store.get(id);
  if (row === undefined || row.state === 'uploading') throw new ApiError(404, 'not_found', `no trace ${id}`);
  return row;
}

/** A page of lines (GET …/lines), built from the stored text without parsing it. */
export async function linesResponse(ctx: CollectorContext, c: Ctx, row: TraceRow): Promise<Response> {
  const limit = queryLimit(c, COLLECTOR_DEFAULTS.pageLines, COLLECTOR_DEFAULTS.maxPageLines);
  const lines = await ctx.store.pageLines(row.n, querySeq(c, 'after', 0), limit, {
    dir: queryChoice(c, 'dir', ['in', 'out'] as const),
    kind: queryChoice(c, 'kind', ['message', 'text', 'stderr', 'http', 'event'] as const),
    method: queryText(c, 'method'),
    tool: queryText(c, 'tool'),
    server: queryText(c, 'server'),
    errors: queryBool(c, 'errors'),
  });
  const full = lines.length === limit;
  const next = full ? lines[lines.length - 1]!.seq : null;
  const end = !full && row.end_line !== null ? row.end_line : 'null';
  const body =
    `{"id":${JSON.stringify(row.id)},"lines":[${lines.map((line) => line.text).join(',')}],"next":${next},` +
    `"lastSeq":${row.last_seq},"state":${JSON.stringify(row.state)},"end":${end}}`;
  return new Response(body, { headers: { 'content-type': 'application/json; charset=utf-8' } });
}

/** The whole trace as JSONL, read a page at a time as the client takes it. */
export function jsonlResponse(ctx: CollectorContext, row: TraceRow): Response {
  const encoder = new TextEncoder();
  let after = 0;
  let started = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        const meta =
          row.meta ??
          JSON.stringify({
            v: 1,
            type: 'meta',
            startedAt: new Date(row.created_ms).toISOString(),
            label: row.label,
          });
        controller.enqueue(encoder.encode(`${meta}\n`));
        return;
      }
      const lines = await ctx.store.pageLines(row.n, after, 1000);
      if (lines.length > 0) {
        after = lines[lines.length - 1]!.seq;
        controller.enqueue(encoder.encode(`${lines.map((line) => line.text).join('\n')}\n`));
        return;
      }
      const end = (await ctx.store.get(row.id))?.end_line;
      if (end != null) controller.enqueue(encoder.encode(`${end}\n`));
      controller.close();
    },
  });
  return new Response(stream, {
    headers: {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'content-disposition': `inline; filename="${row.id}.jsonl"`,
    },
  });
}

/** Upgrades to the live websocket (426 for a plain GET); `share` when it is opened with a share link. */
export function liveResponse(ctx: CollectorContext, c: Ctx, next: Next, row: TraceRow, share?: ShareGrant) {
  if (c.req.header('upgrade')?.toLowerCase() !== 'websocket')
    throw new ApiError(
      426,
      'upgrade_required',
      'this is a websocket endpoint: connect with a websocket client',
    );
  const since = querySeq(c, 'since', 0);
  return ctx.upgradeWebSocket(() => ({
    onOpen: (_event, ws) => ctx.hub.attach(ws.raw as WebSocket, row, since, share),
  }))(c, next);
}

/** The viewer's address for a fragment, on the host the client used. */
export function viewerUrl(c: Ctx, fragment: string): string {
  return `${new URL(c.req.url).origin}/#${fragment}`;
}
