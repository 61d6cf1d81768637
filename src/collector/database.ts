import { TapedeckError } from '../base/errors.js';
import { refuseLink } from '../base/no-follow.js';
import { ensurePrivateFile } from './home.js';
import { type SqliteDatabase, type SqliteDriver, sqliteOpener } from './sqlite.js';

/**
 * The SQLite database behind the collector. WAL with `synchronous = FULL`: every commit is on disk before the
 * call that made it returns, so an upload acknowledged to its client survives a `kill -9` of the collector (and a
 * power cut, which NORMAL would not promise). The cost is one fsync per transaction; ingestion writes thousands
 * of lines per transaction, so that cost stays small.
 *
 * Tables:
 * - `traces`: one row per trace with its summary (label, server, counts, errors, state, meta and end lines);
 * - `lines`: one row per record line (`seq` order) with the columns searches use: kind, dir, method, tool,
 *   server, is_error; `text` is the line as JSONL text;
 * - `terms`: the distinct tools, methods and servers of each trace with their counts (trace search, summaries);
 * - `shares`: read-only share links;
 * - `tokens`: team tokens (a hash of each secret), see tokens.ts.
 *
 * Every table is created if missing, so opening a database of an earlier schema brings it up to date.
 */

export type Db = SqliteDatabase;

/** 1: traces, lines, terms, shares; 2: tokens. */
const SCHEMA_VERSION = 2;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS traces (
  n INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL,
  format TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  server TEXT,
  transport TEXT,
  started_at TEXT,
  started_ms INTEGER,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL,
  line_count INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL DEFAULT 0,
  msg_in INTEGER NOT NULL DEFAULT 0,
  msg_out INTEGER NOT NULL DEFAULT 0,
  errors INTEGER NOT NULL DEFAULT 0,
  last_seq INTEGER NOT NULL DEFAULT 0,
  meta TEXT,
  end_line TEXT
);
CREATE INDEX IF NOT EXISTS traces_started ON traces(started_ms);
CREATE INDEX IF NOT EXISTS traces_updated ON traces(updated_ms);
CREATE TABLE IF NOT EXISTS lines (
  trace INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  dir TEXT,
  method TEXT,
  tool TEXT,
  server TEXT,
  is_error INTEGER NOT NULL DEFAULT 0,
  text TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS lines_trace_seq ON lines(trace, seq);
CREATE TABLE IF NOT EXISTS terms (
  kind TEXT NOT NULL,
  value TEXT NOT NULL,
  trace INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (kind, value, trace)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS terms_trace ON terms(trace);
CREATE TABLE IF NOT EXISTS shares (
  id TEXT PRIMARY KEY,
  trace INTEGER NOT NULL,
  created_ms INTEGER NOT NULL,
  expires_ms INTEGER NOT NULL,
  revoked_ms INTEGER
);
CREATE INDEX IF NOT EXISTS shares_trace ON shares(trace);
CREATE TABLE IF NOT EXISTS tokens (
  id TEXT PRIMARY KEY,
  scope TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  hash TEXT NOT NULL UNIQUE,
  created_ms INTEGER NOT NULL,
  revoked_ms INTEGER
);
`;

/** The files SQLite keeps beside a database. */
const SIDE_FILES = ['-wal', '-shm', '-journal'];

/**
 * Opens (creating when missing) the database at `path`: 0600 in a 0700 folder, WAL, synchronous FULL, the schema.
 * SQLite follows links, so the database and its side files are refused when one is a symbolic link.
 *
 * `driver` picks the SQLite driver; by default node:sqlite where Node.js has it, else better-sqlite3.
 *
 * @example const db = openDatabase(defaultDbPath());
 */
export function openDatabase(path: string, driver?: SqliteDriver): Db {
  // Before the file is touched: a missing driver is its own one-line error, not "cannot open the database".
  const open = sqliteOpener(driver);
  let db: Db;
  try {
    for (const suffix of SIDE_FILES) refuseLink(`${path}${suffix}`);
    ensurePrivateFile(path, true);
    db = open(path);
  } catch (err) {
    throw new TapedeckError('io', `cannot open the collector database ${path}: ${(err as Error).message}`);
  }
  try {
    // A second process (record --live beside tapedeck serve) may hold the write lock for a moment.
    db.pragma('busy_timeout = 5000');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new TapedeckError(
        'io',
        `the collector database ${path} was written by a newer tapedeck (schema ${version}); use that version or another --db`,
      );
    }
    // Set before the first table exists: deleted traces give their pages back (see retention), and pages big
    // enough for several trace lines each keep the lines table shallow.
    if (version === 0) {
      db.pragma('page_size = 16384');
      db.pragma('auto_vacuum = INCREMENTAL');
    }
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(SCHEMA);
    if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
    return db;
  } catch (err) {
    db.close();
    if (err instanceof TapedeckError) throw err;
    throw new TapedeckError('io', `cannot use the collector database ${path}: ${(err as Error).message}`);
  }
}
