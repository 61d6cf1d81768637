import type { PoolClient } from 'pg';
import { TapedeckError } from '../base/errors.js';

/**
 * The collector's Postgres schema, as numbered migrations. At start a collector applies the ones its database
 * lacks, in one transaction under an advisory lock, so collectors starting together migrate it once; a database
 * migrated by a newer tapedeck is refused. `tapedeck_schema` records each version applied and when.
 */

export interface Migration {
  version: number;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE traces (
  n SERIAL PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL,
  format TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  server TEXT,
  transport TEXT,
  started_at TEXT,
  started_ms BIGINT,
  created_ms BIGINT NOT NULL,
  updated_ms BIGINT NOT NULL,
  line_count BIGINT NOT NULL DEFAULT 0,
  bytes BIGINT NOT NULL DEFAULT 0,
  msg_in BIGINT NOT NULL DEFAULT 0,
  msg_out BIGINT NOT NULL DEFAULT 0,
  errors BIGINT NOT NULL DEFAULT 0,
  last_seq BIGINT NOT NULL DEFAULT 0,
  meta TEXT,
  end_line TEXT
);
CREATE INDEX traces_started ON traces(started_ms);
CREATE INDEX traces_updated ON traces(updated_ms);
CREATE TABLE lines (
  trace INTEGER NOT NULL,
  seq BIGINT NOT NULL,
  kind TEXT NOT NULL,
  dir TEXT,
  method TEXT,
  tool TEXT,
  server TEXT,
  is_error SMALLINT NOT NULL DEFAULT 0,
  text TEXT NOT NULL,
  PRIMARY KEY (trace, seq)
);
CREATE TABLE terms (
  kind TEXT NOT NULL,
  value TEXT NOT NULL,
  trace INTEGER NOT NULL,
  count BIGINT NOT NULL,
  PRIMARY KEY (kind, value, trace)
);
CREATE INDEX terms_trace ON terms(trace);
CREATE TABLE shares (
  id TEXT PRIMARY KEY,
  trace INTEGER NOT NULL,
  created_ms BIGINT NOT NULL,
  expires_ms BIGINT NOT NULL,
  revoked_ms BIGINT
);
CREATE INDEX shares_trace ON shares(trace);
`,
  },
  {
    version: 2,
    sql: `
CREATE TABLE tokens (
  id TEXT PRIMARY KEY,
  scope TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  hash TEXT NOT NULL UNIQUE,
  created_ms BIGINT NOT NULL,
  revoked_ms BIGINT
);
`,
  },
];

/** The newest schema this version of tapedeck knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Advisory lock keys (one 64-bit space per database): migrations, retention. */
export const LOCKS = { migrate: 7_420_001, retain: 7_420_002 } as const;

/**
 * Brings the tables of `schema` (created when missing; it is the connection's search path) up to `target` (default:
 * the newest), returning the version it was at.
 *
 * @example await migrate(client); // 0 on an empty database
 */
export async function migrate(
  client: PoolClient,
  where: string,
  target = SCHEMA_VERSION,
  schema = 'public',
): Promise<number> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCKS.migrate]);
    // Under the lock: collectors starting together would race to create it.
    if (schema !== 'public') await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      'CREATE TABLE IF NOT EXISTS tapedeck_schema (version INTEGER PRIMARY KEY, applied_ms BIGINT NOT NULL)',
    );
    const { rows } = await client.query<{ version: number | null }>(
      'SELECT max(version) AS version FROM tapedeck_schema',
    );
    const current = rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new TapedeckError(
        'io',
        `the collector database ${where} was migrated by a newer tapedeck (schema ${current}, this one knows ${SCHEMA_VERSION}); use that version or another --db`,
      );
    }
    for (const migration of MIGRATIONS) {
      if (migration.version <= current || migration.version > target) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO tapedeck_schema (version, applied_ms) VALUES ($1, $2)', [
        migration.version,
        Date.now(),
      ]);
    }
    await client.query('COMMIT');
    return current;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}
