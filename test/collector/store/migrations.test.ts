import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, openStore } from '../../../src/collector/open-store.js';
import { postgresTarget } from '../../../src/collector/postgres-connect.js';
import { MIGRATIONS, migrate, SCHEMA_VERSION } from '../../../src/collector/postgres-schema.js';
import { freshSchema, NO_POSTGRES, requirePostgres } from '../../helpers/postgres.js';
import { scratchDir } from '../../helpers/scratch.js';
import { call, push } from './engines.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(NO_POSTGRES !== undefined)(`the Postgres schema ${NO_POSTGRES ?? ''}`, () => {
  /** A client on a fresh schema, the schema dropped after the test. */
  const onFreshSchema = async () => {
    const schema = await freshSchema();
    cleanups.push(schema.drop);
    const client = new pg.Client({ connectionString: requirePostgres() });
    await client.connect();
    cleanups.push(() => client.end());
    await client.query(`CREATE SCHEMA ${schema.schema}`);
    await client.query(`SET search_path TO ${schema.schema}`);
    return { client, schema };
  };

  for (const from of Array.from({ length: SCHEMA_VERSION }, (_, i) => i)) {
    it(`migrates a database at schema ${from} to ${SCHEMA_VERSION}, keeping what it holds`, async () => {
      const { client, schema } = await onFreshSchema();
      expect(await migrate(client as unknown as pg.PoolClient, 'test', from)).toBe(0);
      if (from >= 1) {
        await client.query(
          `INSERT INTO traces (id, state, format, label, created_ms, updated_ms, line_count, last_seq) VALUES ('AAAAAAAAAAAAAAAA', 'complete', 'tapedeck', 'kept', 1, 1, 1, 1)`,
        );
        await client.query(
          `INSERT INTO lines (trace, seq, kind, text) SELECT n, 1, 'stderr', '{"seq":1,"kept":true}' FROM traces`,
        );
      }
      const store = await openStore(schema.url);
      cleanups.push(() => store.close());
      const applied = await client.query('SELECT version FROM tapedeck_schema ORDER BY version');
      expect(applied.rows.map((row) => row.version)).toEqual(MIGRATIONS.map((m) => m.version));
      if (from >= 1) {
        const row = (await store.get('AAAAAAAAAAAAAAAA'))!;
        expect(row.label).toBe('kept');
        expect(await store.pageLines(row.n, 0, 10)).toEqual([{ seq: 1, text: '{"seq":1,"kept":true}' }]);
      }
      const token = await store.createToken('read', 'after migration', 1);
      expect(await store.tokenScope(token.secret, 2)).toBe('read');
    });
  }

  it('migrates once when several collectors start on the same empty database at once', async () => {
    const schema = await freshSchema();
    cleanups.push(schema.drop);
    const stores = await Promise.all([openStore(schema.url), openStore(schema.url), openStore(schema.url)]);
    for (const store of stores) cleanups.push(() => store.close());
    const row = await stores[0]!.create({ format: 'tapedeck', state: 'live' });
    await push(stores[1]!, row, `${call(1, 'echo').join('\n')}\n`, 'append');
    expect((await stores[2]!.get(row.id))!.line_count).toBe(2);
  });

  it('refuses a database migrated by a newer tapedeck, in one line', async () => {
    const { client, schema } = await onFreshSchema();
    await migrate(client as unknown as pg.PoolClient, 'test');
    await client.query('INSERT INTO tapedeck_schema (version, applied_ms) VALUES ($1, 0)', [
      SCHEMA_VERSION + 1,
    ]);
    const where = postgresTarget(schema.url).where;
    await expect(openStore(schema.url)).rejects.toThrow(
      `the collector database ${where} was migrated by a newer tapedeck (schema ${SCHEMA_VERSION + 1}, this one knows ${SCHEMA_VERSION}); use that version or another --db`,
    );
  });

  it('says in one line which host refused the password, or where nothing listens', async () => {
    const wrong = new URL(requirePostgres());
    wrong.password = 'not-the-password';
    const target = postgresTarget(wrong.toString());
    await expect(openStore(wrong.toString())).rejects.toThrow(
      `cannot use the collector database ${target.where}: the password was refused: check the user and password in the database URL`,
    );
    const closed = new URL(requirePostgres());
    closed.port = '1';
    await expect(openStore(closed.toString())).rejects.toThrow(
      `cannot use the collector database ${postgresTarget(closed.toString()).where}: nothing listens at ${closed.hostname}:1: check that Postgres runs and listens there (listen_addresses, port)`,
    );
  });
});

describe('the SQLite schema', () => {
  it('brings a database of schema 1 up to date: what it holds stays, team tokens work', async () => {
    const dir = scratchDir('tapedeck-migrate-');
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'tapedeck.db');
    const old = new Database(path);
    old.exec(
      `CREATE TABLE traces (n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, state TEXT NOT NULL, format TEXT NOT NULL, label TEXT NOT NULL DEFAULT '', server TEXT, transport TEXT, started_at TEXT, started_ms INTEGER, created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL, line_count INTEGER NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0, msg_in INTEGER NOT NULL DEFAULT 0, msg_out INTEGER NOT NULL DEFAULT 0, errors INTEGER NOT NULL DEFAULT 0, last_seq INTEGER NOT NULL DEFAULT 0, meta TEXT, end_line TEXT);
       INSERT INTO traces (id, state, format, label, created_ms, updated_ms) VALUES ('AAAAAAAAAAAAAAAA', 'complete', 'tapedeck', 'kept', 1, 1);`,
    );
    old.pragma('user_version = 1');
    old.close();
    const store = openSqliteStore(path);
    cleanups.push(() => store.close());
    expect((await store.get('AAAAAAAAAAAAAAAA'))!.label).toBe('kept');
    const token = await store.createToken('write', '', 1);
    expect(await store.tokenScope(token.secret, 1)).toBe('write');
    expect(store.db.pragma('user_version', { simple: true })).toBe(2);
  });
});
