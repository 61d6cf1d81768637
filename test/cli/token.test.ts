/**
 * `tapedeck token create|list|revoke` on the collector's database: a token made with the command is accepted by a
 * collector on that database, for what its scope allows, until it is revoked — on SQLite and on Postgres.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Collector, startCollector } from '../../src/collector/index.js';
import { TEST_TOKEN } from '../collector/helpers.js';
import { useCliHarness } from '../helpers/cli.js';
import { freshSchema, NO_POSTGRES } from '../helpers/postgres.js';

const engines = [
  {
    name: 'SQLite',
    skip: undefined,
    database: async (dir: string) => ({ db: join(dir, 'tapedeck.db'), drop: async () => {} }),
  },
  {
    name: 'Postgres',
    skip: NO_POSTGRES,
    database: async () => {
      const schema = await freshSchema();
      return { db: schema.url, drop: schema.drop };
    },
  },
];

for (const engine of engines) {
  describe.skipIf(engine.skip !== undefined)(`tapedeck token on ${engine.name} ${engine.skip ?? ''}`, () => {
    const io = useCliHarness('tapedeck-token-', { env: { NO_COLOR: '1' } });
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    it('makes tokens a collector accepts by scope beyond loopback, lists them without secrets, revokes them', async () => {
      const { db, drop } = await engine.database(io.dir);
      cleanups.push(drop);
      // Reads need a token, as on a non-loopback address.
      const collector: Collector = await startCollector({
        dbPath: db,
        token: TEST_TOKEN,
        port: 0,
        requireReadToken: true,
        spoolDir: io.dir,
      });
      cleanups.push(() => collector.close());
      const make = async (...flags: string[]) => {
        io.stdout = '';
        io.stderr = '';
        expect(await io.run(['token', 'create', ...flags, '--db', db])).toBe(0);
        return io.stdout.trim();
      };
      const reader = await make('--read', '--label', 'dashboard');
      expect(io.stderr).toMatch(
        /^tapedeck: made read token tok_[A-Za-z0-9_-]{12} \(dashboard\); its secret is shown once:\n$/,
      );
      const writer = await make('--write');
      const as = (secret: string, path: string, init: RequestInit = {}) =>
        fetch(`${collector.url}${path}`, { ...init, headers: { authorization: `Bearer ${secret}` } });
      expect((await as(reader, '/api/v1/traces')).status).toBe(200);
      expect((await as(reader, '/api/v1/traces/live', { method: 'POST', body: '{}' })).status).toBe(401);
      expect((await as(writer, '/api/v1/traces/live', { method: 'POST', body: '{}' })).status).toBe(201);
      expect((await as(writer, '/api/v1/traces')).status).toBe(200);

      io.stdout = '';
      expect(await io.run(['token', 'list', '--db', db])).toBe(0);
      const rows = io.stdout
        .trim()
        .split('\n')
        .map((line) => line.split('\t'));
      expect(rows.map((row) => row.slice(1, 3))).toEqual([
        ['read', 'dashboard'],
        ['write', ''],
      ]);
      expect(io.stdout).not.toContain(reader);
      io.stderr = '';
      expect(await io.run(['token', 'revoke', rows[0]![0]!, '--db', db])).toBe(0);
      expect(io.stderr).toBe(`tapedeck: revoked ${rows[0]![0]}\n`);
      expect((await as(reader, '/api/v1/traces')).status).toBe(401);
      expect((await as(writer, '/api/v1/traces')).status).toBe(200);
    });

    it('refuses what it cannot do in one line, exit 2', async () => {
      const { db, drop } = await engine.database(io.dir);
      cleanups.push(drop);
      io.stderr = '';
      expect(await io.run(['token', 'create', '--db', db])).toBe(2);
      expect(io.stderr).toBe('tapedeck: token create needs one of --read or --write\n');
      io.stderr = '';
      expect(await io.run(['token', 'revoke', 'tok_AAAAAAAAAAAA', '--db', db])).toBe(2);
      expect(io.stderr).toBe(
        'tapedeck: not known in this database: tok_AAAAAAAAAAAA (see tapedeck token list)\n',
      );
    });
  });
}
