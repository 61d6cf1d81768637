import { openDatabase } from './database.js';
import { isPostgresUrl, postgresTarget } from './postgres-connect.js';
import type { SqliteDriver } from './sqlite.js';
import { SqliteStore } from './sqlite-store.js';
import type { CollectorStore } from './store.js';

/**
 * Opens the store a `--db` value names: a `postgres://` (or `postgresql://`) URL is the Postgres engine, anything
 * else an SQLite database file (created 0600 in a 0700 folder when missing).
 *
 * @example const store = await openStore(process.env.TAPEDECK_DATABASE_URL ?? defaultDbPath());
 */
export async function openStore(database: string, now: () => number = Date.now): Promise<CollectorStore> {
  if (!isPostgresUrl(database)) return openSqliteStore(database, now);
  const { PostgresStore } = await import('./postgres-store.js');
  return PostgresStore.open(postgresTarget(database), now);
}

/** The SQLite engine over the database file at `path`, opened at once (with `driver`, or the one Node.js allows). */
export function openSqliteStore(
  path: string,
  now: () => number = Date.now,
  driver?: SqliteDriver,
): SqliteStore {
  return new SqliteStore(openDatabase(path, driver), path, now);
}
