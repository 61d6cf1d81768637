import { PRODUCER } from '../../base/version.js';
import { timestamp } from '../../trace/encode.js';
import type { Json, MetaLine, RecordBody } from '../../trace/types.js';
import type { RequestEvent } from '../types.js';

/**
 * How events become trace format v1 lines, for the sinks that store traces (a file per session, a live trace on
 * a collector): one trace per session, `conn` = the session id.
 */

/**
 * A person-readable label for a session's trace: the server, and who was calling.
 *
 * @example sessionLabel(event) // 'weather · ada@example.com'
 */
export function sessionLabel(event: RequestEvent): string {
  const server = event.server?.name ?? 'mcp-server';
  const who =
    event.user?.email ??
    event.user?.name ??
    event.user?.id ??
    `${event.identity.kind} ${event.identity.key.slice(0, 8)}`;
  return `${server} · ${who}`;
}

/** The meta line of a session's trace: session-wide facts (identity, user, client, release) ride along. */
export function metaOf(event: RequestEvent): MetaLine {
  const meta: MetaLine = {
    v: 1,
    type: 'meta',
    startedAt: event.startedAt,
    label: sessionLabel(event),
    kind: 'mcp',
    producer: { ...PRODUCER },
    traceId: event.sessionId,
    segment: 0,
    session: {
      id: event.sessionId,
      era: event.sessionEra,
      identity: event.identity,
      ...(event.user === undefined ? {} : { user: event.user }),
      ...(event.client === undefined ? {} : { client: event.client }),
    },
  };
  if (event.transport !== 'unknown') meta.transport = event.transport;
  if (event.server !== undefined) meta.server = event.server.name;
  if (event.release !== undefined) meta.release = event.release;
  return meta;
}

/**
 * The record lines one event becomes, in time order: its HTTP facts (an `http` line, headers already redacted),
 * the request (`in`), related messages kept whole, then the answer (`out`) — or an `unanswered` event line for a
 * cancelled or cut-off request.
 */
export function linesOf(event: RequestEvent): RecordBody[] {
  const conn = event.sessionId;
  const lines: RecordBody[] = [];
  const t = event.startedAt;
  const http = event.http;
  if (http?.headers !== undefined || http?.peerAddress !== undefined) {
    lines.push({
      t,
      type: 'http',
      conn,
      dir: 'in',
      headers: http.headers ?? {},
      ...(http.method === undefined ? {} : { method: http.method }),
      ...(http.url === undefined ? {} : { url: http.url }),
      ...(http.peerAddress === undefined ? {} : { peer: http.peerAddress }),
    });
  }
  const request: Record<string, Json> = { jsonrpc: '2.0', id: event.requestId, method: event.method };
  if (event.params !== undefined) request.params = event.params;
  lines.push({ t, dir: 'in', conn, raw: request });
  for (const related of event.related.messages ?? []) {
    lines.push({ t: related.t, dir: related.dir, conn, raw: related.message });
  }
  const end = timestamp(Date.parse(event.startedAt) + event.durationMs);
  if (event.outcome === 'cancelled' || event.outcome === 'closed') {
    lines.push({
      t: end,
      type: 'event',
      name: 'unanswered',
      requestId: event.requestId,
      outcome: event.outcome,
    });
    return lines;
  }
  const response: Record<string, Json> = { jsonrpc: '2.0', id: event.requestId };
  if (event.error !== undefined) response.error = event.error as unknown as Json;
  // With result capture off the answer's shape stays, its content does not.
  else response.result = event.result ?? (event.isError === true ? { isError: true } : {});
  lines.push({ t: end, dir: 'out', conn, raw: response });
  return lines;
}
