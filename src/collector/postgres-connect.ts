import type { Pool, PoolConfig } from 'pg';
import { TapedeckError } from '../base/errors.js';

/**
 * Connecting to Postgres: the driver (`pg`, pure JavaScript) is loaded only when a `postgres://` database is asked
 * for, and a failure to connect is one line naming the host and what to check.
 */

/** Where a collector's Postgres data lives: the connection URL (password kept out of messages) and schema. */
export interface PostgresTarget {
  url: string;
  /** The schema holding the tables (default `public`); `?schema=NAME` in the URL sets it. */
  schema: string;
  /** `user@host:port/database` (and `?schema=` when not public): what messages name. */
  where: string;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** True for a database argument that names Postgres. */
export function isPostgresUrl(database: string): boolean {
  return /^postgres(ql)?:\/\//i.test(database);
}

/**
 * Reads a `postgres://` URL: its schema parameter is tapedeck's, every other parameter goes to the driver.
 *
 * @example postgresTarget('postgres://me:pw@db:5432/tapedeck?schema=team').where // 'me@db:5432/tapedeck?schema=team'
 */
export function postgresTarget(database: string): PostgresTarget {
  let url: URL;
  try {
    url = new URL(database);
  } catch {
    throw new TapedeckError(
      'usage',
      'the database URL does not parse: expected postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    );
  }
  const schema = url.searchParams.get('schema') ?? 'public';
  url.searchParams.delete('schema');
  if (!SCHEMA_NAME.test(schema))
    throw new TapedeckError(
      'usage',
      `schema '${schema.slice(0, 80)}' in the database URL: expected lower-case letters, digits and _`,
    );
  const user = decodeURIComponent(url.username) || 'the current user';
  const where = `${user}@${url.hostname || 'localhost'}:${url.port || '5432'}${url.pathname}${schema === 'public' ? '' : `?schema=${schema}`}`;
  return { url: url.toString(), schema, where };
}

type PgModule = typeof import('pg');

let loaded: PgModule | undefined;

async function loadPg(): Promise<PgModule> {
  if (loaded !== undefined) return loaded;
  try {
    const module = (await import('pg')) as PgModule & { default?: PgModule };
    loaded = module.default ?? module;
    return loaded;
  } catch (err) {
    throw new TapedeckError(
      'unavailable',
      `the Postgres driver (pg) does not load: ${(err as Error).message}`,
    );
  }
}

/** A pool of connections to `target`, with BIGINT read as numbers (counters and times fit in 2^53). */
export async function connectPool(target: PostgresTarget, config: PoolConfig = {}): Promise<Pool> {
  const pg = await loadPg();
  const bigint = pg.types.builtins.INT8;
  const pool = new pg.Pool({
    connectionString: target.url,
    // Every read is a page in key order (lines by trace and seq, traces newest first), which only an index scan
    // gives without sorting. Right after a large ingest, before autovacuum has analyzed the tables, the planner
    // would otherwise pick a bitmap scan and sort the whole trace to return its first 500 lines.
    options: `-c search_path=${target.schema} -c enable_bitmapscan=off`,
    connectionTimeoutMillis: 10_000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === bigint
          ? Number
          : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
    },
    ...config,
  });
  // An idle connection the server closed (a restart) is an error event on the pool; the next query reconnects.
  pool.on('error', () => {});
  return pool;
}

/** One line for a failure to reach or use the database at `where`. */
export function connectError(err: unknown, where: string): TapedeckError {
  const e = err as { code?: string; message?: string };
  const host = where.slice(where.indexOf('@') + 1).split('/')[0];
  const hints: Record<string, string> = {
    ECONNREFUSED: `nothing listens at ${host}: check that Postgres runs and listens there (listen_addresses, port)`,
    ENOTFOUND: `the host name does not resolve: check the host in the database URL`,
    ETIMEDOUT: `no answer from ${host}: check the address and any firewall between`,
    '28P01': 'the password was refused: check the user and password in the database URL',
    '28000':
      'the server refused this user from this address: check pg_hba.conf and the user in the database URL',
    '3D000': 'no such database: create it (createdb) or fix its name in the database URL',
    '42501': 'the user lacks a privilege the collector needs: let it create tables in the schema',
  };
  const hint = hints[e.code ?? ''] ?? e.message ?? String(err);
  return new TapedeckError('io', `cannot use the collector database ${where}: ${hint}`);
}
