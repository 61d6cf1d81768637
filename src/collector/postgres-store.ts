import { randomBytes } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { TapedeckError } from '../base/errors.js';
import type { LineQuery } from '../trace/query.js';
import { metaColumns, planBatch } from './batch-plan.js';
import { connectError, connectPool, type PostgresTarget } from './postgres-connect.js';
import { PostgresEvents } from './postgres-events.js';
import { LOCKS, migrate } from './postgres-schema.js';
import { pageSql, type Sql, searchPage, searchSql, type TraceQuery } from './queries.js';
import {
  oldestUntil,
  type RetentionCandidate,
  type RetentionPolicy,
  type RetentionResult,
} from './retention.js';
import { newShare, type ShareInfo, type ShareRow, shareInfo, shareState } from './shares.js';
import type {
  CollectorStore,
  LineBatch,
  NewToken,
  ShareLookup,
  StoredLine,
  StoreEvents,
  Term,
  TermRow,
  TraceRow,
  TraceState,
  WriteMode,
  WriteResult,
} from './store.js';
import { mintToken, type TokenInfo, type TokenRow, type TokenScope, tokenHash, tokenInfo } from './tokens.js';

/**
 * The elements of the JSON arrays in parameters `ks`, side by side (ROWS FROM zips them in order). The columns of a
 * batch go to Postgres as JSON arrays: the driver writes an array parameter as an array literal, escaping each
 * element in JavaScript, which costs the collector more CPU than all else it does for a line; JSON.stringify is
 * native and many times faster.
 */
function fromJson(ks: readonly number[]): string {
  return ks.map((k) => `json_array_elements_text($${k}::json)`).join(', ');
}

/**
 * The Postgres engine: any number of collectors on one database act as one. Each write is one transaction
 * (committed, so on disk, before its promise resolves); a write to a trace locks its row, so appends through
 * different collectors are numbered one after the other. What happened is announced with NOTIFY in the same
 * transaction, so every collector hears each commit once, in commit order (postgres-events.ts).
 *
 * @example const store = await PostgresStore.open(postgresTarget(url)); … await store.close();
 */
export class PostgresStore implements CollectorStore {
  readonly engine = 'postgres';
  readonly location: string;
  private readonly events: PostgresEvents;

  private constructor(
    private readonly pool: Pool,
    target: PostgresTarget,
    private readonly now: () => number,
  ) {
    this.location = target.where;
    this.events = new PostgresEvents(pool, `tapedeck_${target.schema}`, (sql) => this.all(sql));
  }

  /** Connects, creates the schema when missing, applies the migrations it lacks, and starts listening. */
  static async open(target: PostgresTarget, now: () => number = Date.now): Promise<PostgresStore> {
    const pool = await connectPool(target);
    let client: PoolClient | undefined;
    try {
      client = await pool.connect();
      await migrate(client, target.where, undefined, target.schema);
    } catch (err) {
      client?.release();
      await pool.end().catch(() => {});
      throw err instanceof TapedeckError ? err : connectError(err, target.where);
    }
    client.release();
    const store = new PostgresStore(pool, target, now);
    try {
      await store.events.start();
    } catch (err) {
      await store.close();
      throw connectError(err, target.where);
    }
    return store;
  }

  on(listener: Partial<StoreEvents>): void {
    this.events.on(listener);
  }

  async create(init: { format: string; state: TraceState; label?: string | undefined }): Promise<TraceRow> {
    const now = this.now();
    const id = randomBytes(12).toString('base64url');
    const { rows } = await this.pool.query<TraceRow>(
      `INSERT INTO traces (id, state, format, label, created_ms, updated_ms) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [id, init.state, init.format, init.label ?? '', now, now],
    );
    return rows[0]!;
  }

  async get(id: string): Promise<TraceRow | undefined> {
    const { rows } = await this.pool.query<TraceRow>('SELECT * FROM traces WHERE id = $1', [id]);
    return rows[0];
  }

  async write(n: number, batch: LineBatch, mode: WriteMode): Promise<WriteResult> {
    const written = await this.transaction((client) => this.writeIn(client, n, batch, mode));
    if (written.id !== undefined) this.events.local(written.id, written.result);
    return written.result;
  }

  private async writeIn(
    client: PoolClient,
    n: number,
    batch: LineBatch,
    mode: WriteMode,
  ): Promise<{ id: string | undefined; result: WriteResult }> {
    const { rows } = await client.query<{
      id: string;
      last_seq: number;
      has_meta: boolean;
      ended: boolean;
      label: string;
    }>(
      'SELECT id, last_seq, meta IS NOT NULL AS has_meta, end_line IS NOT NULL AS ended, label FROM traces WHERE n = $1 FOR UPDATE',
      [n],
    );
    const current = rows[0];
    if (current === undefined)
      return { id: undefined, result: { stored: [], duplicates: 0, ended: undefined } };
    const plan = planBatch(batch, mode, current.last_seq);
    const ended = batch.end !== undefined && !current.ended ? batch.end.text : undefined;
    const result = { stored: plan.stored, duplicates: plan.duplicates, ended };
    const notice = this.events.writeNotice(current.id, n, result);
    const c = plan.rows.map((row) => row.columns);
    // The lines, the terms, the trace's counters and the announcement in one statement: one round trip.
    await client.query(
      `WITH added AS (
         INSERT INTO lines (trace, seq, kind, dir, method, tool, server, is_error, text)
         SELECT $1, seq::bigint, kind, dir, method, tool, server, is_error::smallint, text FROM ROWS FROM (
           ${fromJson([2, 3, 4, 5, 6, 7, 8, 9])}) AS r(seq, kind, dir, method, tool, server, is_error, text)
       ), counted AS (
         INSERT INTO terms (kind, value, trace, count) SELECT k, v, $1, c FROM unnest($10::text[], $11::text[], $12::bigint[]) AS t(k, v, c)
         ON CONFLICT (kind, value, trace) DO UPDATE SET count = terms.count + excluded.count
       ), told AS (
         SELECT pg_notify($20, $21) WHERE $21::text IS NOT NULL
       )
       UPDATE traces SET line_count = line_count + $13, bytes = bytes + $14, msg_in = msg_in + $15, msg_out = msg_out + $16,
         errors = errors + $17, last_seq = $18, updated_ms = $19, server = coalesce(server, $22)
       WHERE n = $1 AND (SELECT count(*) FROM told) >= 0`,
      [
        n,
        JSON.stringify(plan.rows.map((row) => row.seq)),
        JSON.stringify(c.map((x) => x.kind)),
        JSON.stringify(c.map((x) => x.dir)),
        JSON.stringify(c.map((x) => x.method)),
        JSON.stringify(c.map((x) => x.tool)),
        JSON.stringify(c.map((x) => x.server)),
        JSON.stringify(c.map((x) => (x.isError ? 1 : 0))),
        JSON.stringify(plan.rows.map((row) => row.text)),
        plan.terms.map((t) => t[0]),
        plan.terms.map((t) => t[1]),
        plan.terms.map((t) => t[2]),
        plan.rows.length,
        plan.bytes,
        plan.msgIn,
        plan.msgOut,
        plan.errors,
        plan.last,
        this.now(),
        notice?.channel ?? '',
        notice?.payload ?? null,
        plan.server,
      ],
    );
    if (batch.meta !== undefined && !current.has_meta) {
      const m = metaColumns(batch.meta, current.label);
      await client.query(
        `UPDATE traces SET meta = $1, label = $2, transport = $3, started_at = $4, started_ms = $5,
          server = coalesce($6, server) WHERE n = $7`,
        [batch.meta.text, m.label, m.transport, m.startedAt, m.startedMs, m.server, n],
      );
    }
    if (ended !== undefined)
      await client.query(
        `UPDATE traces SET end_line = $1, state = CASE state WHEN 'live' THEN 'complete' ELSE state END WHERE n = $2`,
        [ended, n],
      );
    return { id: current.id, result };
  }

  async completeUpload(n: number, format: string): Promise<void> {
    await this.pool.query(`UPDATE traces SET state = 'complete', format = $1 WHERE n = $2`, [format, n]);
  }

  async remove(row: Pick<TraceRow, 'n' | 'id'>): Promise<void> {
    await this.transaction(async (client) => {
      for (const table of ['lines', 'terms', 'shares'])
        await client.query(`DELETE FROM ${table} WHERE trace = $1`, [row.n]);
      await client.query('DELETE FROM traces WHERE n = $1', [row.n]);
      await this.events.announce(client, { e: 'remove', id: row.id });
    });
    this.events.emitLocal((l) => l.remove?.(row.id));
  }

  /** Other collectors may be mid-upload: only uploads idle for `idleMs` were cut off. */
  async removeUnfinished(idleMs: number): Promise<number> {
    const { rows } = await this.pool.query<TraceRow>(
      `SELECT n, id FROM traces WHERE state = 'uploading' AND updated_ms <= $1`,
      [this.now() - idleMs],
    );
    for (const row of rows) await this.remove(row);
    return rows.length;
  }

  async terms(n: number, kind: 'tool' | 'method' | 'server'): Promise<Term[]> {
    const { rows } = await this.pool.query<Term>(
      'SELECT value AS name, count FROM terms WHERE trace = $1 AND kind = $2 ORDER BY count DESC, value LIMIT 200',
      [n, kind],
    );
    return rows;
  }

  async termsOf(ns: readonly number[]): Promise<TermRow[]> {
    if (ns.length === 0) return [];
    const { rows } = await this.pool.query<TermRow>(
      'SELECT trace, kind, value AS name, count FROM terms WHERE trace = ANY($1::int[]) ORDER BY trace, kind, count DESC, value',
      [ns],
    );
    return rows;
  }

  async pageLines(n: number, after: number, limit: number, filter?: LineQuery): Promise<StoredLine[]> {
    return (await this.all(pageSql(n, after, limit, filter))) as StoredLine[];
  }

  async search(query: TraceQuery): Promise<{ rows: TraceRow[]; next: number | null }> {
    const sql = searchSql(query);
    const rows = (await this.all({
      text: sql.text.replace(' LIKE ', ' ILIKE '),
      params: sql.params,
    })) as TraceRow[];
    return searchPage(rows, query.limit);
  }

  async createShare(trace: TraceRow, ttlMs: number, now: number): Promise<ShareRow> {
    const share = newShare(trace.n, ttlMs, now);
    await this.pool.query('INSERT INTO shares (id, trace, created_ms, expires_ms) VALUES ($1, $2, $3, $4)', [
      share.id,
      share.trace,
      share.created_ms,
      share.expires_ms,
    ]);
    return share;
  }

  async resolveShare(id: string, now: number): Promise<ShareLookup> {
    const { rows } = await this.pool.query<ShareRow & { t: TraceRow | null }>(
      'SELECT shares.*, row_to_json(traces.*) AS t FROM shares LEFT JOIN traces ON traces.n = shares.trace WHERE shares.id = $1',
      [id],
    );
    const found = rows[0];
    if (found === undefined) return { kind: 'missing' };
    const { t: trace, ...share } = found;
    const state = shareState(share, now);
    if (state !== 'ok') return { kind: state };
    return trace === null ? { kind: 'missing' } : { kind: 'ok', share, trace };
  }

  async revokeShare(id: string, now: number): Promise<boolean> {
    const changed = await this.transaction(async (client) => {
      const result = await client.query(
        'UPDATE shares SET revoked_ms = coalesce(revoked_ms, $1) WHERE id = $2',
        [now, id],
      );
      if ((result.rowCount ?? 0) > 0) await this.events.announce(client, { e: 'share', id });
      return (result.rowCount ?? 0) > 0;
    });
    if (changed) this.events.emitLocal((l) => l.shareRevoked?.(id));
    return changed;
  }

  async listShares(trace: TraceRow): Promise<ShareInfo[]> {
    const { rows } = await this.pool.query<ShareRow>(
      'SELECT * FROM shares WHERE trace = $1 ORDER BY created_ms',
      [trace.n],
    );
    return rows.map((row) => shareInfo(row, trace.id));
  }

  async listAllShares(): Promise<ShareInfo[]> {
    const { rows } = await this.pool.query<ShareRow & { trace_id: string }>(
      'SELECT shares.*, traces.id AS trace_id FROM shares JOIN traces ON traces.n = shares.trace ORDER BY shares.created_ms, shares.id',
    );
    return rows.map((row) => shareInfo(row, row.trace_id));
  }

  /** Under a session advisory lock: while one collector applies retention, the others skip their turn. */
  async retain(policy: RetentionPolicy, now: number): Promise<RetentionResult | undefined> {
    const client = await this.pool.connect();
    try {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [
        LOCKS.retain,
      ]);
      if (rows[0]?.ok !== true) return undefined;
      try {
        return await this.retainLocked(client, policy, now);
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [LOCKS.retain]);
      }
    } finally {
      client.release();
    }
  }

  private async retainLocked(
    client: PoolClient,
    policy: RetentionPolicy,
    now: number,
  ): Promise<RetentionResult> {
    const result: RetentionResult = { removed: 0, bytes: 0 };
    const doomed: RetentionCandidate[] = [];
    if (policy.maxAgeMs !== undefined) {
      const { rows } = await client.query<RetentionCandidate>(
        `SELECT n, id, bytes FROM traces WHERE state != 'uploading' AND updated_ms < $1 ORDER BY n`,
        [now - policy.maxAgeMs],
      );
      doomed.push(...rows);
    }
    if (policy.maxBytes !== undefined) {
      const gone = new Set(doomed.map((row) => row.n));
      const { rows } = await client.query<RetentionCandidate>(
        `SELECT n, id, bytes FROM traces WHERE state != 'uploading' ORDER BY n`,
      );
      const total =
        rows.reduce((sum, row) => sum + row.bytes, 0) - doomed.reduce((sum, row) => sum + row.bytes, 0);
      if (total > policy.maxBytes)
        doomed.push(
          ...oldestUntil(
            rows.filter((row) => !gone.has(row.n)),
            total - policy.maxBytes,
          ),
        );
    }
    for (const row of doomed) {
      await this.remove(row);
      result.removed += 1;
      result.bytes += row.bytes;
    }
    return result;
  }

  async createToken(scope: TokenScope, label: string, now: number): Promise<NewToken> {
    const { id, secret } = mintToken();
    await this.pool.query(
      'INSERT INTO tokens (id, scope, label, hash, created_ms) VALUES ($1, $2, $3, $4, $5)',
      [id, scope, label, tokenHash(secret), now],
    );
    return { ...tokenInfo({ id, scope, label, hash: '', created_ms: now, revoked_ms: null }), secret };
  }

  async listTokens(): Promise<TokenInfo[]> {
    const { rows } = await this.pool.query<TokenRow>('SELECT * FROM tokens ORDER BY created_ms, id');
    return rows.map(tokenInfo);
  }

  async revokeToken(id: string, now: number): Promise<boolean> {
    const result = await this.pool.query(
      'UPDATE tokens SET revoked_ms = coalesce(revoked_ms, $1) WHERE id = $2',
      [now, id],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async tokenScope(secret: string, _now: number): Promise<TokenScope | undefined> {
    const { rows } = await this.pool.query<{ scope: TokenScope }>(
      'SELECT scope FROM tokens WHERE hash = $1 AND revoked_ms IS NULL',
      [tokenHash(secret)],
    );
    return rows[0]?.scope;
  }

  async close(): Promise<void> {
    await this.events.stop();
    await this.pool.end();
  }

  private async all(sql: Sql): Promise<unknown[]> {
    let i = 0;
    const text = sql.text.replace(/\?/g, () => `$${++i}`);
    return (await this.pool.query(text, sql.params)).rows;
  }

  private async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      // A connection that failed mid-transaction is not given back to the pool.
      client.release(err instanceof Error ? err : true);
      throw err;
    }
  }
}
