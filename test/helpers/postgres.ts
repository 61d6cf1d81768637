import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The Postgres the tests use: TAPEDECK_TEST_DATABASE_URL. `npm test` must work with only Node.js and npm, so
 * without it the Postgres tests are skipped — saying so, with what to set. CI installs Debian's postgresql and
 * sets TAPEDECK_REQUIRE_POSTGRES=1, which turns a missing database into a failure instead.
 */
export const POSTGRES_URL = process.env.TAPEDECK_TEST_DATABASE_URL;

export const NO_POSTGRES =
  POSTGRES_URL === undefined && process.env.TAPEDECK_REQUIRE_POSTGRES !== '1'
    ? '(skipped: TAPEDECK_TEST_DATABASE_URL is not set; point it at a Postgres database the tests may create schemas in, e.g. postgres://tapedeck:tapedeck@127.0.0.1:5432/tapedeck_test)'
    : undefined;
if (NO_POSTGRES !== undefined) console.warn(`tapedeck Postgres tests ${NO_POSTGRES}`);

/** The database URL, or a failure saying it is required (TAPEDECK_REQUIRE_POSTGRES=1 without one). */
export function requirePostgres(): string {
  if (POSTGRES_URL === undefined)
    throw new Error(
      'TAPEDECK_REQUIRE_POSTGRES=1 but TAPEDECK_TEST_DATABASE_URL is not set: the Postgres tests cannot run',
    );
  return POSTGRES_URL;
}

/**
 * A schema of its own for one test (tests run in parallel on one database): its URL (`?schema=`) and a drop that
 * removes it with everything in it.
 *
 * @example const { url, drop } = await freshSchema(); … await drop();
 */
export async function freshSchema(): Promise<{ url: string; schema: string; drop: () => Promise<void> }> {
  const base = requirePostgres();
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const url = new URL(base);
  url.searchParams.set('schema', schema);
  return {
    url: url.toString(),
    schema,
    drop: () => adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`),
  };
}

/** Runs one statement on the test database with a connection of its own. */
export async function adminQuery(sql: string, params: unknown[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: requirePostgres() });
  await client.connect();
  try {
    await client.query(sql, params);
  } finally {
    await client.end();
  }
}
