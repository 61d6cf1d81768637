import { randomBytes } from 'node:crypto';
import { encodeLine } from '../trace/encode.js';
import type { EndLine, MetaLine, RecordLine } from '../trace/types.js';
import type { LineColumns } from './columns.js';
import type { Db } from './database.js';
import type { SqliteStatement } from './sqlite.js';

/** `uploading` until an upload is acknowledged (removed at start if it never was), `live` while appends come in. */
export type TraceState = 'uploading' | 'live' | 'complete';

/** A `traces` row as stored. */
export interface TraceRow {
  n: number;
  id: string;
  state: TraceState;
  format: string;
  label: string;
  server: string | null;
  transport: string | null;
  started_at: string | null;
  started_ms: number | null;
  created_ms: number;
  updated_ms: number;
  line_count: number;
  bytes: number;
  msg_in: number;
  msg_out: number;
  errors: number;
  last_seq: number;
  meta: string | null;
  end_line: string | null;
}

/** One record line on its way in; `seq` may be missing (mcp-tape) or out of order, the store settles it. */
export interface IncomingRecord {
  line: RecordLine;
  text: string;
  columns: LineColumns;
}

export interface LineBatch {
  meta?: { line: MetaLine; text: string } | undefined;
  records: IncomingRecord[];
  end?: { line: EndLine; text: string } | undefined;
}

/**
 * `upload`: lines without `seq`, or not above the last one, are numbered after it (their text re-encoded).
 * `append`: a line at or below the last `seq` was stored already (a retried batch) and is skipped.
 */
export type WriteMode = 'upload' | 'append';

/** A stored line: its sequence number and JSONL text (without the newline). */
export interface StoredLine {
  seq: number;
  text: string;
}

export interface WriteResult {
  stored: StoredLine[];
  duplicates: number;
  /** The end line, when this batch ended the trace. */
  ended: string | undefined;
}

/** What the live websocket hub hears about, after the transaction that caused it has committed. */
export interface StoreEvents {
  append(id: string, lines: readonly StoredLine[]): void;
  end(id: string, endText: string): void;
  remove(id: string): void;
}

/** Public trace ids: 16 characters of base64url from 12 random bytes. */
export const TRACE_ID = /^[A-Za-z0-9_-]{16}$/;

/**
 * The collector's storage: traces, their lines and summaries, in one SQLite database. Every method is
 * synchronous (better-sqlite3) and every write is one transaction, so concurrent requests interleave only
 * between whole batches.
 *
 * @example const store = new TraceStore(openDatabase(path)); const row = store.create({ format: 'tapedeck', state: 'live' });
 */
export class TraceStore {
  private readonly listeners: Partial<StoreEvents>[] = [];
  private readonly statements: Record<string, SqliteStatement> = {};

  constructor(
    readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** Registers listeners for committed changes. */
  on(listener: Partial<StoreEvents>): void {
    this.listeners.push(listener);
  }

  create(init: { format: string; state: TraceState; label?: string | undefined }): TraceRow {
    const now = this.now();
    const id = randomBytes(12).toString('base64url');
    this.stmt(
      'create',
      `INSERT INTO traces (id, state, format, label, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(id, init.state, init.format, init.label ?? '', now, now);
    return this.get(id)!;
  }

  get(id: string): TraceRow | undefined {
    return this.stmt('get', 'SELECT * FROM traces WHERE id = ?').get(id) as TraceRow | undefined;
  }

  /**
   * Stores one batch in one transaction: lines, counters, terms, the meta line (the first one given wins) and the
   * end line. Listeners hear about it once it has committed.
   */
  write(n: number, batch: LineBatch, mode: WriteMode): WriteResult {
    const result = this.writeTx(n, batch, mode);
    const row = this.stmt('id', 'SELECT id FROM traces WHERE n = ?').get(n) as { id: string } | undefined;
    if (row !== undefined) {
      if (result.stored.length > 0) for (const l of this.listeners) l.append?.(row.id, result.stored);
      if (result.ended !== undefined) for (const l of this.listeners) l.end?.(row.id, result.ended);
    }
    return result;
  }

  private readonly writeTx = (n: number, batch: LineBatch, mode: WriteMode): WriteResult =>
    this.db.transaction(() => this.writeNow(n, batch, mode))();

  private writeNow(n: number, batch: LineBatch, mode: WriteMode): WriteResult {
    const current = this.stmt(
      'current',
      'SELECT last_seq, meta IS NOT NULL AS has_meta, end_line IS NOT NULL AS ended, label FROM traces WHERE n = ?',
    ).get(n) as { last_seq: number; has_meta: number; ended: number; label: string } | undefined;
    if (current === undefined) return { stored: [], duplicates: 0, ended: undefined };
    let last = current.last_seq;
    const stored: StoredLine[] = [];
    let duplicates = 0;
    let bytes = 0;
    let msgIn = 0;
    let msgOut = 0;
    let errors = 0;
    let server: string | null = null;
    const terms = new Map<string, number>();
    const insert = this.stmt(
      'insert',
      'INSERT INTO lines (trace, seq, kind, dir, method, tool, server, is_error, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const record of batch.records) {
      let { text } = record;
      let seq = record.line.seq;
      if (seq === undefined || seq <= last) {
        if (mode === 'append' && seq !== undefined) {
          duplicates += 1;
          continue;
        }
        seq = last + 1;
        text = renumber(record.line, seq);
      }
      last = seq;
      const c = record.columns;
      insert.run(n, seq, c.kind, c.dir, c.method, c.tool, c.server, c.isError ? 1 : 0, text);
      stored.push({ seq, text });
      bytes += text.length;
      if (c.kind === 'message') {
        if (c.dir === 'in') msgIn += 1;
        else msgOut += 1;
      }
      if (c.isError) errors += 1;
      server ??= c.server;
      // Requests and notifications count once each; a response carries its request's method and tool.
      if (c.role !== 'response') {
        if (c.tool !== null) count(terms, 'tool', c.tool);
        if (c.method !== null) count(terms, 'method', c.method);
      }
      if (c.server !== null) count(terms, 'server', c.server);
    }
    const upsert = this.stmt(
      'term',
      'INSERT INTO terms (kind, value, trace, count) VALUES (?, ?, ?, ?) ON CONFLICT (kind, value, trace) DO UPDATE SET count = count + excluded.count',
    );
    for (const [key, value] of terms) {
      const cut = key.indexOf('\u0000');
      upsert.run(key.slice(0, cut), key.slice(cut + 1), n, value);
    }
    this.stmt(
      'counters',
      `UPDATE traces SET line_count = line_count + ?, bytes = bytes + ?, msg_in = msg_in + ?, msg_out = msg_out + ?,
        errors = errors + ?, last_seq = ?, updated_ms = ?, server = coalesce(server, ?) WHERE n = ?`,
    ).run(stored.length, bytes, msgIn, msgOut, errors, last, this.now(), server, n);
    if (batch.meta !== undefined && current.has_meta === 0) this.setMeta(n, batch.meta, current.label);
    let ended: string | undefined;
    if (batch.end !== undefined && current.ended === 0) {
      ended = batch.end.text;
      this.stmt(
        'end',
        `UPDATE traces SET end_line = ?, state = CASE state WHEN 'live' THEN 'complete' ELSE state END WHERE n = ?`,
      ).run(ended, n);
    }
    return { stored, duplicates, ended };
  }

  private setMeta(n: number, meta: { line: MetaLine; text: string }, label: string): void {
    const m = meta.line;
    const started = Date.parse(m.startedAt);
    this.stmt(
      'meta',
      `UPDATE traces SET meta = ?, label = ?, transport = ?, started_at = ?, started_ms = ?,
        server = coalesce(?, server) WHERE n = ?`,
    ).run(
      meta.text,
      // A label given with the upload wins over the trace's own.
      label !== '' ? label : m.label,
      typeof m.transport === 'string' ? m.transport : null,
      m.startedAt,
      Number.isNaN(started) ? null : started,
      typeof m.server === 'string' ? m.server : null,
      n,
    );
  }

  setState(n: number, state: TraceState): void {
    this.stmt('state', 'UPDATE traces SET state = ?, updated_ms = ? WHERE n = ?').run(state, this.now(), n);
  }

  /** Deletes a trace with its lines, terms and shares. */
  remove(row: Pick<TraceRow, 'n' | 'id'>): void {
    this.db.transaction(() => {
      this.stmt('rm-lines', 'DELETE FROM lines WHERE trace = ?').run(row.n);
      this.stmt('rm-terms', 'DELETE FROM terms WHERE trace = ?').run(row.n);
      this.stmt('rm-shares', 'DELETE FROM shares WHERE trace = ?').run(row.n);
      this.stmt('rm-trace', 'DELETE FROM traces WHERE n = ?').run(row.n);
    })();
    for (const l of this.listeners) l.remove?.(row.id);
  }

  /** Uploads that were never acknowledged (the collector stopped mid-upload): gone at start. */
  removeUnfinished(): number {
    const rows = this.db.prepare(`SELECT n, id FROM traces WHERE state = 'uploading'`).all() as TraceRow[];
    for (const row of rows) this.remove(row);
    return rows.length;
  }

  /** The distinct values of one kind of term in a trace, most frequent first. */
  terms(n: number, kind: 'tool' | 'method' | 'server'): { name: string; count: number }[] {
    return this.stmt(
      'terms',
      'SELECT value AS name, count FROM terms WHERE trace = ? AND kind = ? ORDER BY count DESC, value LIMIT 200',
    ).all(n, kind) as { name: string; count: number }[];
  }

  /** A prepared statement, made once. */
  stmt(key: string, sql: string): SqliteStatement {
    let statement = this.statements[key];
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements[key] = statement;
    }
    return statement;
  }
}

function count(terms: Map<string, number>, kind: string, value: string): void {
  const key = `${kind}\u0000${value}`;
  terms.set(key, (terms.get(key) ?? 0) + 1);
}

/** The line with a new `seq`, kept right after `t` where tapedeck writes it. */
function renumber(line: RecordLine, seq: number): string {
  const { t, seq: _old, ...rest } = line;
  const text = encodeLine({ t, seq, ...rest } as RecordLine);
  return text.slice(0, -1);
}
