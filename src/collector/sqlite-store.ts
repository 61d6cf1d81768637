import { randomBytes } from 'node:crypto';
import { metaColumns, planBatch } from './batch-plan.js';
import type { Db } from './database.js';
import { type LineFilter, pageSql, type Sql, searchPage, searchSql, type TraceQuery } from './queries.js';
import {
  oldestUntil,
  type RetentionCandidate,
  type RetentionPolicy,
  type RetentionResult,
} from './retention.js';
import { newShare, type ShareInfo, type ShareRow, shareInfo, shareState } from './shares.js';
import type { SqliteStatement } from './sqlite.js';
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
 * The SQLite engine: one database file (database.ts), one process writing at a time. The driver is synchronous,
 * so each method does its work in the turn it is called and every write is one transaction, committed (WAL,
 * synchronous FULL) before its promise resolves.
 *
 * @example const store = new SqliteStore(openDatabase(path), path);
 */
export class SqliteStore implements CollectorStore {
  readonly engine = 'sqlite';
  private readonly listeners: Partial<StoreEvents>[] = [];
  private readonly statements = new Map<string, SqliteStatement>();

  constructor(
    readonly db: Db,
    readonly location: string,
    private readonly now: () => number = Date.now,
  ) {}

  on(listener: Partial<StoreEvents>): void {
    this.listeners.push(listener);
  }

  async create(init: { format: string; state: TraceState; label?: string | undefined }): Promise<TraceRow> {
    const now = this.now();
    const id = randomBytes(12).toString('base64url');
    this.stmt(
      `INSERT INTO traces (id, state, format, label, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(id, init.state, init.format, init.label ?? '', now, now);
    return this.getNow(id)!;
  }

  async get(id: string): Promise<TraceRow | undefined> {
    return this.getNow(id);
  }

  private getNow(id: string): TraceRow | undefined {
    return this.stmt('SELECT * FROM traces WHERE id = ?').get(id) as TraceRow | undefined;
  }

  async write(n: number, batch: LineBatch, mode: WriteMode): Promise<WriteResult> {
    const result = this.db.transaction(() => this.writeNow(n, batch, mode))();
    const row = this.stmt('SELECT id FROM traces WHERE n = ?').get(n) as { id: string } | undefined;
    if (row !== undefined) {
      if (result.stored.length > 0) for (const l of this.listeners) l.append?.(row.id, result.stored);
      if (result.ended !== undefined) for (const l of this.listeners) l.end?.(row.id, result.ended);
    }
    return result;
  }

  private writeNow(n: number, batch: LineBatch, mode: WriteMode): WriteResult {
    const current = this.stmt(
      'SELECT last_seq, meta IS NOT NULL AS has_meta, end_line IS NOT NULL AS ended, label FROM traces WHERE n = ?',
    ).get(n) as { last_seq: number; has_meta: number; ended: number; label: string } | undefined;
    if (current === undefined) return { stored: [], duplicates: 0, ended: undefined };
    const plan = planBatch(batch, mode, current.last_seq);
    const insert = this.stmt(
      'INSERT INTO lines (trace, seq, kind, dir, method, tool, server, is_error, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const { seq, text, columns: c } of plan.rows)
      insert.run(n, seq, c.kind, c.dir, c.method, c.tool, c.server, c.isError ? 1 : 0, text);
    const upsert = this.stmt(
      'INSERT INTO terms (kind, value, trace, count) VALUES (?, ?, ?, ?) ON CONFLICT (kind, value, trace) DO UPDATE SET count = count + excluded.count',
    );
    for (const [kind, value, count] of plan.terms) upsert.run(kind, value, n, count);
    this.stmt(
      `UPDATE traces SET line_count = line_count + ?, bytes = bytes + ?, msg_in = msg_in + ?, msg_out = msg_out + ?,
        errors = errors + ?, last_seq = ?, updated_ms = ?, server = coalesce(server, ?) WHERE n = ?`,
    ).run(
      plan.rows.length,
      plan.bytes,
      plan.msgIn,
      plan.msgOut,
      plan.errors,
      plan.last,
      this.now(),
      plan.server,
      n,
    );
    if (batch.meta !== undefined && current.has_meta === 0) {
      const m = metaColumns(batch.meta, current.label);
      this.stmt(
        `UPDATE traces SET meta = ?, label = ?, transport = ?, started_at = ?, started_ms = ?,
          server = coalesce(?, server) WHERE n = ?`,
      ).run(batch.meta.text, m.label, m.transport, m.startedAt, m.startedMs, m.server, n);
    }
    let ended: string | undefined;
    if (batch.end !== undefined && current.ended === 0) {
      ended = batch.end.text;
      this.stmt(
        `UPDATE traces SET end_line = ?, state = CASE state WHEN 'live' THEN 'complete' ELSE state END WHERE n = ?`,
      ).run(ended, n);
    }
    return { stored: plan.stored, duplicates: plan.duplicates, ended };
  }

  async completeUpload(n: number, format: string): Promise<void> {
    this.stmt(`UPDATE traces SET state = 'complete', format = ? WHERE n = ?`).run(format, n);
  }

  async remove(row: Pick<TraceRow, 'n' | 'id'>): Promise<void> {
    this.removeNow(row);
  }

  private removeNow(row: Pick<TraceRow, 'n' | 'id'>): void {
    this.db.transaction(() => {
      for (const table of ['lines', 'terms', 'shares'])
        this.stmt(`DELETE FROM ${table} WHERE trace = ?`).run(row.n);
      this.stmt('DELETE FROM traces WHERE n = ?').run(row.n);
    })();
    for (const l of this.listeners) l.remove?.(row.id);
  }

  /** One process owns an SQLite collector, so every upload it finds unfinished at start was cut off. */
  async removeUnfinished(_idleMs: number): Promise<number> {
    const rows = this.stmt(`SELECT n, id FROM traces WHERE state = 'uploading'`).all() as TraceRow[];
    for (const row of rows) this.removeNow(row);
    return rows.length;
  }

  async terms(n: number, kind: 'tool' | 'method' | 'server'): Promise<Term[]> {
    return this.stmt(
      'SELECT value AS name, count FROM terms WHERE trace = ? AND kind = ? ORDER BY count DESC, value LIMIT 200',
    ).all(n, kind) as Term[];
  }

  async termsOf(ns: readonly number[]): Promise<TermRow[]> {
    if (ns.length === 0) return [];
    return this.stmt(
      `SELECT trace, kind, value AS name, count FROM terms WHERE trace IN (${ns.map(() => '?').join(',')}) ORDER BY trace, kind, count DESC, value`,
    ).all(...ns) as TermRow[];
  }

  async pageLines(n: number, after: number, limit: number, filter?: LineFilter): Promise<StoredLine[]> {
    return this.all(pageSql(n, after, limit, filter)) as StoredLine[];
  }

  async search(query: TraceQuery): Promise<{ rows: TraceRow[]; next: number | null }> {
    return searchPage(this.all(searchSql(query)) as TraceRow[], query.limit);
  }

  async createShare(trace: TraceRow, ttlMs: number, now: number): Promise<ShareRow> {
    const share = newShare(trace.n, ttlMs, now);
    this.stmt('INSERT INTO shares (id, trace, created_ms, expires_ms) VALUES (?, ?, ?, ?)').run(
      share.id,
      share.trace,
      share.created_ms,
      share.expires_ms,
    );
    return share;
  }

  async resolveShare(id: string, now: number): Promise<ShareLookup> {
    const share = this.stmt('SELECT * FROM shares WHERE id = ?').get(id) as ShareRow | undefined;
    if (share === undefined) return { kind: 'missing' };
    const state = shareState(share, now);
    if (state !== 'ok') return { kind: state };
    const trace = this.stmt('SELECT * FROM traces WHERE n = ?').get(share.trace) as TraceRow | undefined;
    return trace === undefined ? { kind: 'missing' } : { kind: 'ok', share, trace };
  }

  async revokeShare(id: string, now: number): Promise<boolean> {
    const result = this.stmt('UPDATE shares SET revoked_ms = coalesce(revoked_ms, ?) WHERE id = ?').run(
      now,
      id,
    );
    if (result.changes > 0) for (const l of this.listeners) l.shareRevoked?.(id);
    return result.changes > 0;
  }

  async listShares(trace: TraceRow): Promise<ShareInfo[]> {
    const rows = this.stmt('SELECT * FROM shares WHERE trace = ? ORDER BY created_ms').all(
      trace.n,
    ) as ShareRow[];
    return rows.map((row) => shareInfo(row, trace.id));
  }

  async listAllShares(): Promise<ShareInfo[]> {
    const rows = this.stmt(
      'SELECT shares.*, traces.id AS trace_id FROM shares JOIN traces ON traces.n = shares.trace ORDER BY shares.created_ms, shares.id',
    ).all() as (ShareRow & { trace_id: string })[];
    return rows.map((row) => shareInfo(row, row.trace_id));
  }

  async retain(policy: RetentionPolicy, now: number): Promise<RetentionResult> {
    const result: RetentionResult = { removed: 0, bytes: 0 };
    const drop = (row: RetentionCandidate) => {
      this.removeNow(row);
      result.removed += 1;
      result.bytes += row.bytes;
    };
    if (policy.maxAgeMs !== undefined) {
      const old = this.stmt(
        `SELECT n, id, bytes FROM traces WHERE state != 'uploading' AND updated_ms < ? ORDER BY n`,
      ).all(now - policy.maxAgeMs) as RetentionCandidate[];
      for (const row of old) drop(row);
    }
    if (policy.maxBytes !== undefined) {
      const { total } = this.stmt('SELECT coalesce(sum(bytes), 0) AS total FROM traces').get() as {
        total: number;
      };
      if (total > policy.maxBytes) {
        const oldest = this.stmt(
          `SELECT n, id, bytes FROM traces WHERE state != 'uploading' ORDER BY n`,
        ).iterate() as IterableIterator<RetentionCandidate>;
        for (const row of oldestUntil(oldest, total - policy.maxBytes)) drop(row);
      }
    }
    if (result.removed > 0) this.db.pragma('incremental_vacuum');
    return result;
  }

  async createToken(scope: TokenScope, label: string, now: number): Promise<NewToken> {
    const { id, secret } = mintToken();
    this.stmt('INSERT INTO tokens (id, scope, label, hash, created_ms) VALUES (?, ?, ?, ?, ?)').run(
      id,
      scope,
      label,
      tokenHash(secret),
      now,
    );
    return { ...tokenInfo({ id, scope, label, hash: '', created_ms: now, revoked_ms: null }), secret };
  }

  async listTokens(): Promise<TokenInfo[]> {
    return (this.stmt('SELECT * FROM tokens ORDER BY created_ms, id').all() as TokenRow[]).map(tokenInfo);
  }

  async revokeToken(id: string, now: number): Promise<boolean> {
    return (
      this.stmt('UPDATE tokens SET revoked_ms = coalesce(revoked_ms, ?) WHERE id = ?').run(now, id).changes >
      0
    );
  }

  async tokenScope(secret: string, _now: number): Promise<TokenScope | undefined> {
    const row = this.stmt('SELECT scope FROM tokens WHERE hash = ? AND revoked_ms IS NULL').get(
      tokenHash(secret),
    ) as { scope: TokenScope } | undefined;
    return row?.scope;
  }

  async close(): Promise<void> {
    this.db.close();
  }

  private all(sql: Sql): unknown[] {
    return this.stmt(sql.text).all(...sql.params);
  }

  /** A prepared statement, made once per text. */
  private stmt(sql: string): SqliteStatement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
