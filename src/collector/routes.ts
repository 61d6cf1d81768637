/**
 * The collector's HTTP API, version 1. JSON everywhere unless said otherwise; every error is
 * `{"error":{"code":"<string>","message":"<one line>", …details}}` with the status below.
 *
 * Access
 * - Every request: `Host` must name this machine (localhost, 127.x.x.x, [::1]) or a name given with
 *   --allow-host, and a browser `Origin`, when sent, must be the collector's own origin (`http://` + the Host the
 *   request was sent to) or an allowed name — otherwise 403 `forbidden`. Two `Host` headers: 400 `bad_request`.
 * - Writes (POST, DELETE, and listing shares) need `Authorization: Bearer <token>` — the token in
 *   `<tapedeck home>/token` — otherwise 401 `unauthorized`.
 * - Reads need the token too when the collector is bound to a non-loopback address; on 127.0.0.1 they do not.
 * - The live websocket also takes the token as `?token=<token>` or as a subprotocol: offer
 *   `["tapedeck", "tapedeck.token.<token>"]`; the collector selects `tapedeck`.
 * - `/api/v1/shares/<shareId>/…` needs no token: the share id is the capability, for that one trace only
 *   (unknown share 404 `not_found`; expired or revoked 410 `gone`).
 * - Per client address a token bucket (default 600 at once, 200/s): one for requests with the token, one for
 *   each team token and one for requests without any: 429 `rate_limited` with `Retry-After`.
 * - Bodies over the limit (default 512 MiB, --max-body): 413 `payload_too_large` naming the limit. A line over
 *   the line limit (default 32 MiB, --max-line; also the largest JSON document of a format read whole): 413
 *   `payload_too_large` {line, limit} as soon as the line passes it. Bodies are never held whole; at most two large
 *   bodies (over 1 MiB, or of undeclared length) are ingested at once, others wait unread for their turn.
 * - Malformed ids: 400 `bad_id`; unknown ids: 404 `not_found`. Ids never touch the file system.
 *
 * Ids: trace ids are 16 characters `[A-Za-z0-9_-]`; share ids 32.
 *
 * Routes
 * GET    /api/v1/health                      → {ok: true, name: "tapedeck", version}
 * GET    /api/v1/traces                      search, newest first → {traces: TraceSummary[], next: cursor|null}
 *          ?label=<substring> &server= &tool= &method= &errors=true|false &state=live|complete
 *          &from=<ISO|ms> &to=<ISO|ms> (start time range) &limit=1..500 (default 50) &before=<next cursor>
 * POST   /api/v1/traces                      upload a trace; body = the file (tapedeck / mcp-tape JSONL, mcporter
 *          NDJSON, shack JSON, HTTP exchanges JSON), streamed. ?label= overrides the label, ?format= skips
 *          detection, ?sourceFormat= records the format a client converted from.
 *          → 201 {id, lines, format, skipped, warnings: string[], url (viewer), trace: TraceSummary}
 *          Malformed line → 400 `malformed_line` {line: <number>} "line 12: not valid JSON (…)";
 *          unknown format → 400 `unsupported_format`. Acknowledged (201) means committed.
 * POST   /api/v1/traces/live                 new live trace; body {label?} → 201 {id, url (viewer), trace}
 * POST   /api/v1/traces/:id/lines            append to a live trace; body = JSONL trace lines (meta first, records,
 *          end last). Lines whose seq is at or below the last stored one are skipped as already stored (retries
 *          are safe). → {appended, duplicates, skipped, lastSeq, ended}. Not live → 409 `conflict`.
 * GET    /api/v1/traces/:id                  → TraceSummary
 * GET    /api/v1/traces/:id/lines            a page of lines by seq → {id, lines: TraceLine[], next, lastSeq,
 *          state, end}. ?after=<seq> (default 0) &limit=1..5000 (default 500); filters: &dir=in|out
 *          &kind=message|text|stderr|http|event &method= &tool= &server= &errors=true|false (a response carries
 *          its request's method and tool). `next` is the seq to pass as `after` for the next page, null when this
 *          page reached the end; `end` is the end line once the page reached it (else null).
 * GET    /api/v1/traces/:id/trace.jsonl      the whole trace as tapedeck JSONL (meta, records, end), streamed
 * DELETE /api/v1/traces/:id                  → {deleted: id}; live viewers are closed with 4404
 * GET    /api/v1/traces/:id/live?since=<seq> websocket (see live.ts): snapshot after `since`, then appends;
 *          frames {type:"lines",lines:[…]}, {type:"dropped",count}, {type:"end",line}
 * POST   /api/v1/traces/:id/shares           body {expiresIn?: seconds | "7d"} (default 7d, at most 365d)
 *          → 201 ShareInfo + {url (viewer: <base>/#share=<shareId>), api: "/api/v1/shares/<shareId>"}
 * GET    /api/v1/traces/:id/shares           → {shares: ShareInfo[]} (token always required)
 * GET    /api/v1/shares                      → {shares: ShareInfo[]} of every trace (token always required)
 * DELETE /api/v1/shares/:share               revoke → {revoked: shareId}
 * GET    /api/v1/shares/:share               → {share: ShareInfo, trace: TraceSummary}
 * GET    /api/v1/shares/:share/lines         as /traces/:id/lines
 * GET    /api/v1/shares/:share/trace.jsonl   as /traces/:id/trace.jsonl
 * GET    /api/v1/shares/:share/live          as /traces/:id/live, closed with 4410 when the share expires or is
 *          revoked
 * GET    /, /<asset>                         the built web viewer (dist/viewer), or a page saying it is not built
 *
 * TraceSummary: {id, label, server, servers[], transport, format, state: "live"|"complete", startedAt,
 *   createdAt, updatedAt, lines, bytes, messages: {in, out}, errors, lastSeq, ended, endReason,
 *   tools: [{name, calls}], methods: [{name, count}], session: {id, identity, user, client, era, release} | null}
 *   (see queries.ts; `session` is set for sessions recorded by an instrumented server)
 * ShareInfo: {id, traceId, createdAt, expiresAt, revoked}
 */

import { Hono } from 'hono';
import { duplicateHost } from '../base/local-names.js';
import { VERSION } from '../base/version.js';
import { ApiError, databaseGone } from './api-error.js';
import { type CollectorContext, takeBucket } from './context.js';
import { checkHostOrigin } from './guard.js';
import type { Env } from './http.js';
import { shareRoutes } from './share-routes.js';
import { traceRoutes } from './trace-routes.js';
import { viewerResponse } from './viewer-files.js';

/**
 * The collector as a Hono app: the guards, the API and the viewer's files.
 *
 * @example const app = createApp(context); const response = await app.request('/api/v1/health', { headers: { host: '127.0.0.1' } });
 */
export function createApp(ctx: CollectorContext): Hono<Env> {
  const app = new Hono<Env>();
  app.onError((err) => errorResponse(err));
  app.use('*', async (c, next) => {
    const duplicate = duplicateHost(c.env?.incoming?.rawHeaders);
    if (duplicate !== undefined) throw new ApiError(400, 'bad_request', duplicate);
    const refusal = checkHostOrigin(c.req.header('host'), c.req.header('origin'), ctx.allowHosts);
    if (refusal !== undefined) throw new ApiError(403, 'forbidden', refusal);
    await next();
    c.header('x-content-type-options', 'nosniff');
  });
  app.use('/api/*', async (c, next) => {
    const address = c.env?.incoming?.socket?.remoteAddress ?? 'local';
    // The token and each team token have buckets of their own: a client without one cannot use up theirs.
    const presented = {
      authorization: c.req.header('authorization'),
      query: c.req.query('token'),
      protocols: c.req.header('sec-websocket-protocol'),
    };
    const wait = await takeBucket(ctx, presented, address);
    if (wait > 0) {
      throw new ApiError(
        429,
        'rate_limited',
        `too many requests; retry in ${wait} s`,
        { retryAfter: wait },
        {
          'retry-after': String(wait),
        },
      );
    }
    await next();
    if (!c.res.headers.has('cache-control')) c.header('cache-control', 'no-store');
  });
  app.get('/api/v1/health', (c) => c.json({ ok: true, name: 'tapedeck', version: VERSION }));
  traceRoutes(app, ctx);
  shareRoutes(app, ctx);
  app.all('/api/*', (c) => {
    throw new ApiError(404, 'not_found', `no such API route: ${c.req.method} ${new URL(c.req.url).pathname}`);
  });
  app.get('*', async (c) => {
    const response = await viewerResponse(ctx.viewerDir, new URL(c.req.url).pathname);
    if (response === undefined) throw new ApiError(404, 'not_found', 'no such file');
    return response;
  });
  return app;
}

function errorResponse(err: unknown): Response {
  const error =
    err instanceof ApiError
      ? err
      : (databaseGone(err) ??
        new ApiError(500, 'internal', `internal error: ${err instanceof Error ? err.message : String(err)}`));
  return new Response(JSON.stringify(error.body()), {
    status: error.status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...error.headers,
    },
  });
}
