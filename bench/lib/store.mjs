import { spawnSync } from 'node:child_process';

/** Runs bench/store.mjs (SQLite against Postgres, one and two collectors, and 1M-line reads) in a process. */
export function storeBench(log) {
  const run = spawnSync(process.execPath, [new URL('../store.mjs', import.meta.url).pathname], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 16 * 1024 * 1024,
  });
  for (const line of run.stderr.trim().split('\n')) if (line !== '') log(`store ${line}`);
  if (run.status !== 0) throw new Error(`bench/store.mjs exited ${run.status}`);
  return JSON.parse(run.stdout);
}

/** The goals: Postgres ≥ 0.5× SQLite, two collectors ≥ 1.5× one, first page ≤ 100 ms at 1M lines. */
export function storeVerdicts(s) {
  const rate = (n) => `${n.toLocaleString('en-US')} lines/s`;
  const { linesPerSecond: r } = s.ingest;
  return [
    {
      name: 'store ingest: Postgres / SQLite, one collector',
      measured: `${s.ingest.postgresVsSqlite}× (${rate(r.postgres1)} / ${rate(r.sqlite)})`,
      goal: '≥ 0.5×',
      pass: s.ingest.postgresVsSqlite >= 0.5,
    },
    {
      name: 'store ingest: two collectors / one, Postgres',
      measured: `${s.ingest.twoVsOne}× (${rate(r.postgres2)} / ${rate(r.postgres1)})`,
      goal: '≥ 1.5×',
      pass: s.ingest.twoVsOne >= 1.5,
    },
    ...['sqlite', 'postgres'].map((engine) => ({
      name: `store: open a trace's first page at ${s.query.lines.toLocaleString('en-US')} lines, ${engine}`,
      measured: `${s.query[engine].openFirstPageMs} ms (list ${s.query[engine].listMs} ms, search ${s.query[engine].searchMs} ms)`,
      goal: '≤ 100 ms',
      pass: s.query[engine].openFirstPageMs <= 100,
    })),
  ];
}
