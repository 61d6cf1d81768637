import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Collector, startCollector } from '../../src/collector/index.js';
import { json, TEST_TOKEN } from './helpers.js';
import { watch } from './ws.js';

/**
 * A Postgres of this test's own (restarting the shared test database would break the tests beside it): Debian's
 * binaries, a cluster made with initdb as the postgres user. That needs root and the postgresql package, as in CI.
 */
const PG_BIN = existsSync('/usr/lib/postgresql')
  ? readdirSync('/usr/lib/postgresql')
      .map((version) => join('/usr/lib/postgresql', version, 'bin'))
      .filter((bin) => existsSync(join(bin, 'initdb')))
      .sort()
      .at(-1)
  : undefined;
const NO_CLUSTER =
  process.env.TAPEDECK_REQUIRE_POSTGRES === '1'
    ? undefined
    : PG_BIN === undefined
      ? '(skipped: no Postgres binaries under /usr/lib/postgresql; apt-get install -y postgresql)'
      : process.getuid?.() !== 0
        ? '(skipped: making a throwaway Postgres cluster needs root, to run it as the postgres user)'
        : undefined;
if (NO_CLUSTER !== undefined) console.warn(`tapedeck Postgres restart test ${NO_CLUSTER}`);

describe.skipIf(NO_CLUSTER !== undefined)(
  `a collector whose Postgres restarts mid-ingest ${NO_CLUSTER ?? ''}`,
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapedeck-pg-restart-'));
    const port = 55_000 + Math.floor(Math.random() * 5000);
    const pg = (tool: string, ...args: string[]) =>
      execFileSync('runuser', ['-u', 'postgres', '--', join(PG_BIN!, tool), ...args], { stdio: 'pipe' });
    const ctl = (...args: string[]) =>
      pg('pg_ctl', '-D', join(dir, 'data'), '-l', join(dir, 'log'), '-w', ...args);
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    let a: Collector;
    let b: Collector;

    beforeAll(async () => {
      chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), 0);
      pg('initdb', '-D', join(dir, 'data'), '-U', 'postgres', '--auth=trust');
      ctl('-o', `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}`, 'start');
      a = await startCollector({ dbPath: url, token: TEST_TOKEN, port: 0, spoolDir: dir });
      b = await startCollector({ dbPath: url, token: TEST_TOKEN, port: 0, spoolDir: dir });
    });
    afterAll(async () => {
      await Promise.all([a?.close(), b?.close()]);
      try {
        ctl('-m', 'immediate', 'stop');
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    });

    it('answers 503 while the database is away, then goes on; nothing acknowledged is lost, live viewers resume', async () => {
      const headers = { authorization: `Bearer ${TEST_TOKEN}` };
      const { id } = await json(
        fetch(`${a.url}/api/v1/traces/live`, { method: 'POST', headers, body: '{}' }),
      );
      const line = (seq: number) =>
        JSON.stringify({ t: '2026-03-01T00:00:00.000Z', seq, type: 'stderr', text: `${seq}` });
      const acknowledged: number[] = [];
      const statuses = new Set<number>();
      let seq = 0;
      const send = async () => {
        const next = seq + 1;
        const response = await fetch(`${a.url}/api/v1/traces/${id}/lines`, {
          method: 'POST',
          headers,
          body: `${line(next)}\n`,
        });
        statuses.add(response.status);
        if (response.status === 200) {
          acknowledged.push(next);
          seq = next;
        }
      };
      for (let i = 0; i < 20; i += 1) await send();
      ctl('-m', 'fast', 'stop');
      await send();
      expect(statuses).toContain(503);
      ctl('-o', `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}`, 'start');
      const deadline = Date.now() + 15_000;
      while (acknowledged.length < 40 && Date.now() < deadline) await send();
      expect(acknowledged).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      // The other collector listens again too: a viewer on it sees lines appended through the first.
      const viewer = watch(`${b.url.replace('http', 'ws')}/api/v1/traces/${id}/live?since=40`, { headers });
      await viewer.opened();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      for (let i = 0; i < 5; i += 1) await send();
      await viewer.until(() => viewer.seqs().length === 5, 'the lines appended after the restart');
      expect(viewer.seqs()).toEqual([41, 42, 43, 44, 45]);
      const stored = await json(fetch(`${b.url}/api/v1/traces/${id}/lines?limit=100`, { headers }));
      expect(stored.lines.map((l: { seq: number }) => l.seq)).toEqual(acknowledged);
      viewer.ws.close();
    });
  },
);
