import type { LineQuery } from '../trace/query.js';
import type { CollectorStore, Term, TraceQuery, TraceRow } from './store.js';

export type { TraceQuery } from './store.js';

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
  /**
   * The session's protocol era: `stateless` (2026-07-28: no session id on the wire, the id is the one the recorder
   * keyed from identity, client and idle time) or `initialize`; null when the trace does not say.
   */
  era: 'stateless' | 'initialize' | null;
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
    era: s.era === 'stateless' || s.era === 'initialize' ? s.era : null,
    release: text(meta.release) ?? null,
  };
}

/** The summaries of `rows`, their terms read in one query. */
export async function traceSummaries(
  store: CollectorStore,
  rows: readonly TraceRow[],
): Promise<TraceSummary[]> {
  const terms = new Map<string, Term[]>();
  for (const term of await store.termsOf(rows.map((row) => row.n))) {
    const key = `${term.trace} ${term.kind}`;
    const list = terms.get(key) ?? [];
    if (list.length === 0) terms.set(key, list);
    // As many as one trace's summary lists of each kind.
    if (list.length < 200) list.push({ name: term.name, count: term.count });
  }
  return rows.map((row) => {
    const of = (kind: string) => terms.get(`${row.n} ${kind}`) ?? [];
    return summaryOf(row, of('server'), of('tool'), of('method'));
  });
}

export async function traceSummary(store: CollectorStore, row: TraceRow): Promise<TraceSummary> {
  return (await traceSummaries(store, [row]))[0]!;
}

function summaryOf(row: TraceRow, servers: Term[], tools: Term[], methods: Term[]): TraceSummary {
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
    servers: servers.map((t) => t.name),
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
    tools: tools.map((t) => ({ name: t.name, calls: t.count })),
    methods,
    session: sessionOf(row.meta),
  };
}

const FILTER_COLUMNS = ['dir', 'kind', 'method', 'tool', 'server'] as const;

/** A statement with `?` placeholders and its parameters; each engine runs it in its own dialect. */
export interface Sql {
  text: string;
  params: (string | number)[];
}

/**
 * The query for up to `limit` lines with `seq > after`, in order, matching `filter` (its names matched whole, by
 * the indexed columns; a text search is not answered here).
 *
 * @example pageSql(row.n, 0, 500, { tool: 'echo', errors: true })
 */
export function pageSql(n: number, after: number, limit: number, filter: LineQuery = {}): Sql {
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
  return {
    text: `SELECT seq, text FROM lines WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`,
    params: [...params, limit],
  };
}

/**
 * The trace search, newest first, one row more than `limit` (it says whether there is a next page). Uploads still
 * in progress are not listed.
 *
 * @example searchSql({ tool: 'echo', errors: true, limit: 50 })
 */
export function searchSql(query: TraceQuery): Sql {
  const where = [`state != 'uploading'`];
  const params: (string | number)[] = [];
  if (query.label !== undefined) {
    // Case-insensitive: SQLite's LIKE is; the Postgres engine reads it as ILIKE.
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
  return {
    text: `SELECT * FROM traces WHERE ${where.join(' AND ')} ORDER BY n DESC LIMIT ?`,
    params: [...params, query.limit + 1],
  };
}

/** A search's rows cut to `limit`, with the cursor of the next page. */
export function searchPage(rows: TraceRow[], limit: number): { rows: TraceRow[]; next: number | null } {
  const more = rows.length > limit;
  if (more) rows.pop();
  return { rows, next: more ? rows[rows.length - 1]!.n : null };
}
