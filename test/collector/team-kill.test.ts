import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freshSchema, NO_POSTGRES } from '../helpers/postgres.js';
import { type ProxyRun, spawnTapedeck, waitFor } from '../helpers/proxy.js';
import { scratchDir } from '../helpers/scratch.js';

/** `tapedeck serve --db postgres://…` as a process; resolves once it says where it listens. */
async function serve(db: string, home: string): Promise<{ run: ProxyRun; url: string }> {
  const run = spawnTapedeck(['serve', '--db', db, '--port', '0'], {
    env: { ...process.env, TAPEDECK_HOME: home },
  });
  const listening = /tapedeck collector on (http:\/\/127\.0\.0\.1:\d+) /;
  await waitFor(() => listening.test(run.stderrSoFar()), 15_000, 'the collector to listen');
  return { run, url: listening.exec(run.stderrSoFar())![1]! };
}

const LINES = 10_000;
const PER_POST = 100;

describe.skipIf(NO_POSTGRES !== undefined)(
  `collectors on Postgres killed with SIGKILL ${NO_POSTGRES ?? ''}`,
  () => {
    const cleanups: (() => Promise<void> | void)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    it(`loses none of ${LINES} acknowledged lines when one of two collectors is killed mid-ingest`, async () => {
      const schema = await freshSchema();
      cleanups.push(schema.drop);
      const home = scratchDir('tapedeck-team-kill-');
      cleanups.push(() => rmSync(home, { recursive: true, force: true }));
      const [a, b] = [await serve(schema.url, home), await serve(schema.url, home)];
      cleanups.push(() => {
        a.run.child.kill('SIGKILL');
        b.run.child.kill('SIGKILL');
      });
      const token = readFileSync(join(home, 'token'), 'utf8').trim();
      const headers = { authorization: `Bearer ${token}` };
      const live = async (url: string) =>
        (
          (await (
            await fetch(`${url}/api/v1/traces/live`, { method: 'POST', headers, body: '{}' })
          ).json()) as { id: string }
        ).id;
      // One recorder per trace, as record --live does: trace x through a, trace y through b.
      const traces = [
        { url: a.url, id: await live(a.url), acknowledged: [] as number[] },
        { url: b.url, id: await live(b.url), acknowledged: [] as number[] },
      ];
      const line = (seq: number) =>
        JSON.stringify({ t: '2026-03-01T00:00:00.000Z', seq, type: 'stderr', text: `line ${seq}` });
      const feed = async (trace: (typeof traces)[number]) => {
        for (let first = 1; first <= LINES / 2; first += PER_POST) {
          const seqs = Array.from({ length: PER_POST }, (_, i) => first + i);
          try {
            const response = await fetch(`${trace.url}/api/v1/traces/${trace.id}/lines`, {
              method: 'POST',
              headers,
              body: `${seqs.map(line).join('\n')}\n`,
            });
            if (response.status === 200) trace.acknowledged.push(...seqs);
          } catch {
            return; // its collector is gone
          }
          if (trace.url === a.url && first > LINES / 4) a.run.child.kill('SIGKILL');
        }
      };
      await Promise.all(traces.map(feed));
      expect(traces[0]!.acknowledged.length).toBeGreaterThan(0);
      expect(traces[0]!.acknowledged.length).toBeLessThan(LINES / 2);
      expect(traces[1]!.acknowledged.length).toBe(LINES / 2);
      // Read everything back through the survivor.
      for (const trace of traces) {
        const text = await (
          await fetch(`${b.url}/api/v1/traces/${trace.id}/trace.jsonl`, { headers })
        ).text();
        const stored = text
          .trim()
          .split('\n')
          .slice(1)
          .map((l) => (JSON.parse(l) as { seq: number }).seq);
        expect(stored.slice(0, trace.acknowledged.length)).toEqual(trace.acknowledged);
      }
    });
  },
);
