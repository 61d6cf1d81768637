import type { EndLine, MetaLine, RecordLine } from '../trace/types.js';
import type { LineColumns } from './columns.js';
import type { RetentionPolicy, RetentionResult } from './retention.js';
import type { ShareInfo, ShareRow } from './shares.js';
import type { TokenInfo, TokenScope } from './tokens.js';

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

/**
 * What the live websocket hub hears about, once the transaction that caused it has committed — on this collector
 * or, with a shared database, on any other collector on it.
 */
export interface StoreEvents {
  append(id: string, lines: readonly StoredLine[]): void;
  end(id: string, endText: string): void;
  remove(id: string): void;
  shareRevoked(shareId: string): void;
  /** Whether this listener cares about a trace (another collector's lines are read back only then). */
  watches(id: string): boolean;
}

/** One kind of term of a trace with its count. */
export interface Term {
  name: string;
  count: number;
}

/** One term of one trace. */
export interface TermRow {
  trace: number;
  kind: string;
  name: string;
  count: number;
}

/** A trace share as resolved by its id. */
export type ShareLookup =
  | { kind: 'missing' | 'expired' | 'revoked' }
  | { kind: 'ok'; share: ShareRow; trace: TraceRow };

/** A team token just made: its secret is shown once and only its hash is kept. */
export interface NewToken extends TokenInfo {
  secret: string;
}

/** Filters on the lines of one trace (all optional, combined with AND). */
export interface LineFilter {
  dir?: 'in' | 'out' | undefined;
  kind?: 'message' | 'text' | 'stderr' | 'http' | 'event' | undefined;
  method?: string | undefined;
  tool?: string | undefined;
  server?: string | undefined;
  errors?: boolean | undefined;
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

/** Public trace ids: 16 characters of base64url from 12 random bytes. */
export const TRACE_ID = /^[A-Za-z0-9_-]{16}$/;

/**
 * Everything the collector keeps, behind one interface with two engines: SQLite (one file, the default) and
 * Postgres (a team: several collectors on one database act as one). Every write is one transaction, committed
 * before the promise resolves, so an acknowledged write survives the process that made it. test/collector/store/
 * holds the contract suite both engines pass.
 *
 * @example const store = await openStore({ database: 'postgres://…' }); const row = await store.create({ format: 'tapedeck', state: 'live' });
 */
export interface CollectorStore {
  readonly engine: 'sqlite' | 'postgres';
  /** What the store is, for messages: the database file, or the Postgres host and database (no password). */
  readonly location: string;
  /** Registers listeners for committed changes (this collector's and, on Postgres, every other's). */
  on(listener: Partial<StoreEvents>): void;

  create(init: { format: string; state: TraceState; label?: string | undefined }): Promise<TraceRow>;
  get(id: string): Promise<TraceRow | undefined>;
  /** Stores one batch in one transaction: lines, counters, terms, the meta line (the first wins), the end line. */
  write(n: number, batch: LineBatch, mode: WriteMode): Promise<WriteResult>;
  /** An upload is acknowledged: listed from now on, under the format it came in. */
  completeUpload(n: number, format: string): Promise<void>;
  /** Deletes a trace with its lines, terms and shares. */
  remove(row: Pick<TraceRow, 'n' | 'id'>): Promise<void>;
  /** Uploads never acknowledged (their collector stopped mid-upload, idle past `idleMs`): deleted. */
  removeUnfinished(idleMs: number): Promise<number>;

  /** The distinct values of one kind of term in a trace, most frequent first. */
  terms(n: number, kind: 'tool' | 'method' | 'server'): Promise<Term[]>;
  /** Every term of each of the traces `ns`, in one query: by trace, kind, most frequent first. */
  termsOf(ns: readonly number[]): Promise<TermRow[]>;
  /** Up to `limit` lines with `seq > after`, in order, matching `filter`; byte for byte as they were stored. */
  pageLines(n: number, after: number, limit: number, filter?: LineFilter): Promise<StoredLine[]>;
  /** Searches traces, newest first; uploads in progress are not listed. */
  search(query: TraceQuery): Promise<{ rows: TraceRow[]; next: number | null }>;

  createShare(trace: TraceRow, ttlMs: number, now: number): Promise<ShareRow>;
  resolveShare(id: string, now: number): Promise<ShareLookup>;
  /** Revokes a share; false when there is no such share. */
  revokeShare(id: string, now: number): Promise<boolean>;
  listShares(trace: TraceRow): Promise<ShareInfo[]>;
  /** Every share of every stored trace, oldest first. */
  listAllShares(): Promise<ShareInfo[]>;

  /** Applies retention; `undefined` when another collector on the same database is applying it right now. */
  retain(policy: RetentionPolicy, now: number): Promise<RetentionResult | undefined>;

  createToken(scope: TokenScope, label: string, now: number): Promise<NewToken>;
  listTokens(): Promise<TokenInfo[]>;
  /** Revokes a token; false when there is no such token. */
  revokeToken(id: string, now: number): Promise<boolean>;
  /** The scope of a live (not revoked) token with this secret, else undefined. */
  tokenScope(secret: string, now: number): Promise<TokenScope | undefined>;

  close(): Promise<void>;
}
