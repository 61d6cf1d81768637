import type { LineQuery } from '../trace/query.js';
import type { StoredLine, TraceRow, TraceStore } from './store.js';

/**
 * Read-side queries: trace summaries, pages of lines (with per-line filters) and the trace search. The shapes
 * here are what the API returns; see routes.ts for the API they belong to.
 */

/** A trace as the API describes it. */
export interface TraceSummary {
  id: string;
  label: string;
  /** The server named by the meta line, else by the first message that names one. */
  server: string | null;
  /** Every server named in the trace's messages, most messages first. */
  servers: string[];
  transport: string | null;
  /** The format it was uploaded in (`tapedeck`, `mcp-tape`, `mcporter`, `shack`, `http-exchanges`). */
  format: string;
  state: 'live' | 'complete' | 'uploading';
  startedAt: string | null;
  createdAt: string;
  updatedAt: string;
  lines: number;
  bytes: number;
  messages: { in: number; out: number };
  /** JSON-RPC error responses plus tool results with `isError`. */
  errors: number;
  lastSeq: number;
  ended: boolean;
  endReason: string | null;
  /** tools/call requests per tool name, most called first. */
  tools: { name: string; calls: number }[];
  /** Requests and notifications per method. */
  methods: { name: string; count: number }[];
  /**
   * For a session recorded by an instrumented server (`mcp-tapedeck/instrument`): who and which client, from the meta
   * line's `session`; null for other traces.
   */
  session: SessionFacts | null;
}

/** Who a production session was: the caller's identity, user and client (name, version), as the meta line has them. */
export interface SessionFacts {
  id: string | null;
  identity: { kind: string; key: string } | null;
  user: { id: string; name?: string; email?: string } | null;
  client: { name: string; version?: string } | null;
  release: string | null;
}

/** The `session` facts of a stored meta line, or null when it has none (or cannot be read). */
function sessionOf(metaText: string | null): SessionFacts | null {
  if (metaText === null) return null;
  let meta: { session?: unknown; release?: unknown };
  try {
    meta = JSON.parse(metaText) as typeof meta;
  } catch {
    return null;
  }
  const session = meta.session;
  if (typeof session !== 'object' || session === null) return null;
  const s = session as Record<string, unknown>;
  const record = (value: unknown) =>
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const identity = record(s.identity);
  const user = record(s.user);
  const client = record(s.client);
  const optional = <K extends string>(key: K, value: string | undefined) =>
    value === undefined ? {} : ({ [key]: value } as Record<K, string>);
  return {
    id: text(s.id) ?? null,
    identity:
      identity && text(identity.kind) && text(identity.key)
        ? { kind: text(identity.kind) as string, key: text(identity.key) as string }
        : null,
    user:
      user && text(user.id)
        ? {
            id: text(user.id) as string,
            ...optional('name', text(user.name)),
            ...optional('email', text(user.email)),
          }
        : null,
    client:
      client && text(client.name)
        ? { name: text(client.name) as string, ...optional('version', text(client.version)) }
        : null,
    release: text(meta.release) ?? null,
  };
}

export function traceSummary(store: TraceStore, row: TraceRow): TraceSummary {
  let endReason: string | null = null;
  if (row.end_line !== null) {
    try {
      const reason = (JSON.parse(row.end_line) as { reason?: unknown }).reason;
      endReason = typeof reason === 'string' ? reason : null;
    } catch {
      endReason = null;
    }
  }
  return {
    id: row.id,
    label: row.label,
    server: row.server,
    servers: store.terms(row.n, 'server').map((t) => t.name),
    transport: row.transport,
    format: row.format,
    state: row.state,
    startedAt: row.started_at,
    createdAt: new Date(row.created_ms).toISOString(),
    updatedAt: new Date(row.updated_ms).toISOString(),
    lines: row.line_count,
    bytes: row.bytes,
    messages: { in: row.msg_in, out: row.msg_out },
    errors: row.errors,
    lastSeq: row.last_seq,
    ended: row.end_line !== null,
    endReason,
    tools: store.terms(row.n, 'tool').map((t) => ({ name: t.name, calls: t.count })),
    methods: store.terms(row.n, 'method'),
    session: sessionOf(row.meta),
  };
}

const FILTER_COLUMNS = ['dir', 'kind', 'method', 'tool', 'server'] as const;

/**
 * Up to `limit` lines with `seq > after`, in order, matching `filter` (its names matched whole, by the indexed
 * columns; a text search is not answered here).
 *
 * @example pageLines(store, row.n, 0, 500, { tool: 'echo', errors: true })
 */
export function pageLines(
  store: TraceStore,
  n: number,
  after: number,
  limit: number,
  filter: LineQuery = {},
): StoredLine[] {
  const where = ['trace = ?', 'seq > ?'];
  const params: (string | number)[] = [n, after];
  for (const column of FILTER_COLUMNS) {
    const value = filter[column];
    if (value !== undefined) {
      where.push(`${column} = ?`);
      params.push(value);
    }
  }
  if (filter.errors !== undefined) where.push(`is_error = ${filter.errors ? 1 : 0}`);
  const sql = `SELECT seq, text FROM lines WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`;
  return store.stmt(`page:${sql}`, sql).all(...params, limit) as StoredLine[];
}

/** The trace search (all optional, combined with AND). */
export interface TraceQuery {
  /** Substring of the label, case-insensitive. */
  label?: string | undefined;
  server?: string | undefined;
  tool?: string | undefined;
  method?: string | undefined;
  /** Started at or after / before this time (ms since the epoch). */
  from?: number | undefined;
  to?: number | undefined;
  errors?: boolean | undefined;
  state?: 'live' | 'complete' | undefined;
  /** Newest first; `before` is the `next` cursor of the previous page. */
  before?: number | undefined;
  limit: number;
}

/**
 * Searches traces, newest first. Uploads still in progress are not listed.
 *
 * @example searchTraces(store, { tool: 'echo', errors: true, limit: 50 })
 */
export function searchTraces(
  store: TraceStore,
  query: TraceQuery,
): { rows: TraceRow[]; next: number | null } {
  const where = [`state != 'uploading'`];
  const params: (string | number)[] = [];
  if (query.label !== undefined) {
    where.push(`label LIKE ? ESCAPE '\\'`);
    params.push(`%${query.label.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  if (query.server !== undefined) {
    where.push(`(server = ? OR n IN (SELECT trace FROM terms WHERE kind = 'server' AND value = ?))`);
    params.push(query.server, query.server);
  }
  for (const kind of ['tool', 'method'] as const) {
    const value = query[kind];
    if (value !== undefined) {
      where.push(`n IN (SELECT trace FROM terms WHERE kind = '${kind}' AND value = ?)`);
      params.push(value);
    }
  }
  if (query.from !== undefined) {
    where.push('coalesce(started_ms, created_ms) >= ?');
    params.push(query.from);
  }
  if (query.to !== undefined) {
    where.push('coalesce(started_ms, created_ms) < ?');
    params.push(query.to);
  }
  if (query.errors !== undefined) where.push(query.errors ? 'errors > 0' : 'errors = 0');
  if (query.state !== undefined) {
    where.push('state = ?');
    params.push(query.state);
  }
  if (query.before !== undefined) {
    where.push('n < ?');
    params.push(query.before);
  }
  const sql = `SELECT * FROM traces WHERE ${where.join(' AND ')} ORDER BY n DESC LIMIT ?`;
  const rows = store.stmt(`search:${sql}`, sql).all(...params, query.limit + 1) as TraceRow[];
  const more = rows.length > query.limit;
  if (more) rows.pop();
  return { rows, next: more ? rows[rows.length - 1]!.n : null };
}
