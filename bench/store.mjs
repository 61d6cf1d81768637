// The collector's two engines side by side, in one run (only same-run ratios mean anything on a shared machine):
//   ingest: lines/s appended over HTTP to `tapedeck serve` on SQLite, on Postgres with one collector and with two
//           (the same clients, split between them);
//   query:  time to list, search and open the first page of a trace in a store of 1M lines, on each engine.
// Needs the build (dist/) and a Postgres database: TAPEDECK_BENCH_DATABASE_URL or TAPEDECK_TEST_DATABASE_URL (a
// schema of its own is made and dropped). Knobs: BENCH_STORE_LINES (query store size, default 1000000),
// BENCH_STORE_INGEST (lines per ingest run, default 200000), BENCH_STORE_ROUNDS (alternating ingest rounds, default
// 3; medians reported). Each ingest run also says the CPU the collectors and Postgres used per 1000 lines, and so
// the lines/s the machine's cores would allow at most. Prints JSON on stdout, progress on stderr.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const root = new URL('..', import.meta.url).pathname;
const { openStore } = await import(join(root, 'dist/collector/open-store.js'));
const { LineIndexer } = await import(join(root, 'dist/collector/columns.js'));
const log = (line) => process.stderr.write(`${line}\n`);
const base = process.env.TAPEDECK_BENCH_DATABASE_URL ?? process.env.TAPEDECK_TEST_DATABASE_URL;
if (base === undefined) {
  log('bench store: set TAPEDECK_BENCH_DATABASE_URL (or TAPEDECK_TEST_DATABASE_URL) to a Postgres database');
  process.exit(2);
}
const QUERY_LINES = Number(process.env.BENCH_STORE_LINES ?? 1_000_000);
const INGEST_LINES = Number(process.env.BENCH_STORE_INGEST ?? 200_000);
const CLIENTS = 4;
const ROUNDS = Number(process.env.BENCH_STORE_ROUNDS ?? 3);
const PER_POST = 1000;
const tmp = mkdtempSync(join(tmpdir(), 'tapedeck-bench-store-'));
const schemas = [];
const children = [];

function schemaUrl() {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  schemas.push(schema);
  const url = new URL(base);
  url.searchParams.set('schema', schema);
  return url.toString();
}

async function cleanup() {
  for (const child of children) child.kill('SIGKILL');
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
  rmSync(tmp, { recursive: true, force: true });
}

/** A tools/call request or its answer, as seq `seq`. */
function line(seq) {
  const id = Math.ceil(seq / 2);
  const raw =
    seq % 2 === 1
      ? `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"tool${id % 7}","arguments":{"text":"hello ${seq}"}}}`
      : `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"hello ${seq}"}]}}`;
  return `{"t":"2026-03-01T00:00:00.000Z","seq":${seq},"dir":"${seq % 2 === 1 ? 'in' : 'out'}","raw":${raw}}`;
}

async function serve(db, home) {
  const child = spawn(
    process.execPath,
    [join(root, 'dist/cli/tapedeck.cjs'), 'serve', '--db', db, '--port', '0'],
    {
      env: { ...process.env, TAPEDECK_HOME: home },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  children.push(child);
  let err = '';
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  const deadline = Date.now() + 20_000;
  while (!/collector on (http:\S+)/.test(err)) {
    if (Date.now() > deadline) throw new Error(`serve did not start: ${err}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return /collector on (http:\S+)/.exec(err)[1];
}

/** CLIENTS clients, each appending PER_POST lines at a time to a trace of its own on the collector given to it. */
async function ingest(urls, token) {
  const headers = { authorization: `Bearer ${token}` };
  const per = INGEST_LINES / CLIENTS;
  const traces = [];
  for (let i = 0; i < CLIENTS; i += 1) {
    const url = urls[i % urls.length];
    const { id } = await (
      await fetch(`${url}/api/v1/traces/live`, { method: 'POST', headers, body: '{}' })
    ).json();
    traces.push({ url, id });
  }
  const started = performance.now();
  await Promise.all(
    traces.map(async ({ url, id }) => {
      for (let first = 1; first <= per; first += PER_POST) {
        const body = `${Array.from({ length: PER_POST }, (_, k) => line(first + k)).join('\n')}\n`;
        const response = await fetch(`${url}/api/v1/traces/${id}/lines`, { method: 'POST', headers, body });
        if (response.status !== 200) throw new Error(`append answered ${response.status}`);
        await response.arrayBuffer();
      }
    }),
  );
  return Math.round(INGEST_LINES / ((performance.now() - started) / 1000));
}

/** CPU time (user + system, ms) a process has used so far, from /proc; 0 where there is no /proc. */
function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
  } catch {
    return 0;
  }
}

/** The processes of the Postgres server on this machine (every backend, the bench's and anyone else's). */
function postgresPids() {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
        } catch {
          return false;
        }
      });
  } catch {
    return [];
  }
}

const TICKS = 100;

/**
 * One ingest run: lines/s, and the CPU the collectors and the Postgres server used for it (ms per 1000 lines). On a
 * machine of `cpus` cores the CPU per line bounds the rate: `ceiling` is the lines/s the cores would allow if the
 * run used all of them for this and nothing else (Postgres's figure counts any other work it did meanwhile).
 */
async function ingestRun(name, db, instances) {
  const home = join(tmp, `home-${name}-${randomBytes(3).toString('hex')}`);
  const urls = [];
  for (let i = 0; i < instances; i += 1) urls.push(await serve(db, home));
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  const pids = children.map((child) => child.pid);
  const pg0 = postgresPids();
  const before = { collectors: pids.map(cpuMs), postgres: new Map(pg0.map((pid) => [pid, cpuMs(pid)])) };
  const rate = await ingest(urls, token);
  const collectorsMs = pids.reduce((sum, pid, i) => sum + cpuMs(pid) - before.collectors[i], 0);
  const postgresMs = postgresPids().reduce(
    (sum, pid) => sum + cpuMs(pid) - (before.postgres.get(pid) ?? 0),
    0,
  );
  for (const child of children.splice(0)) child.kill('SIGTERM');
  const per1000 = (ms) => Math.round((ms / INGEST_LINES) * 1000 * 10) / 10;
  const cpu = { collectorsMsPer1000: per1000(collectorsMs), postgresMsPer1000: per1000(postgresMs) };
  const ceiling = Math.round((cpus() * 1_000_000) / (cpu.collectorsMsPer1000 + cpu.postgresMsPer1000));
  log(
    `ingest ${name}: ${rate} lines/s; CPU per 1000 lines: collectors ${cpu.collectorsMsPer1000} ms, ` +
      `postgres ${cpu.postgresMsPer1000} ms → ${cpus()} cores allow ${ceiling} lines/s`,
  );
  return { rate, ...cpu, ceiling };
}

function cpus() {
  return availableParallelism();
}

/** Fills a store with one trace of most of QUERY_LINES lines and 99 small ones, then times the reads. */
async function queryRun(name, database) {
  const store = await openStore(database);
  try {
    const big = await store.create({ format: 'tapedeck', state: 'live', label: 'big' });
    const small = QUERY_LINES / 1000;
    const fill = async (row, count) => {
      const indexer = new LineIndexer();
      for (let first = 1; first <= count; first += 5000) {
        const records = [];
        for (let seq = first; seq < first + 5000 && seq <= count; seq += 1) {
          const text = line(seq);
          const parsed = JSON.parse(text);
          records.push({ line: parsed, text, columns: indexer.columns(parsed) });
        }
        await store.write(row.n, { records }, 'append');
      }
    };
    const started = performance.now();
    await fill(big, QUERY_LINES - 99 * small);
    for (let i = 0; i < 99; i += 1)
      await fill(await store.create({ format: 'tapedeck', state: 'live', label: `small ${i}` }), small);
    log(`query ${name}: ${QUERY_LINES} lines stored in ${Math.round(performance.now() - started)} ms`);
    const time = async (work) => {
      const samples = [];
      for (let i = 0; i < 5; i += 1) {
        const t = performance.now();
        await work();
        samples.push(performance.now() - t);
      }
      samples.sort((a, b) => a - b);
      return Math.round(samples[2] * 10) / 10;
    };
    const { traceSummaries, traceSummary } = await import(join(root, 'dist/collector/queries.js'));
    return {
      listMs: await time(async () => {
        const { rows } = await store.search({ limit: 50 });
        await traceSummaries(store, rows);
      }),
      searchMs: await time(() => store.search({ tool: 'tool3', errors: false, label: 'big', limit: 50 })),
      openFirstPageMs: await time(async () => {
        const row = await store.get(big.id);
        await traceSummary(store, row);
        await store.pageLines(row.n, 0, 500);
      }),
      pageDeepMs: await time(() =>
        store.pageLines(big.n, QUERY_LINES - 99 * small - 1000, 500, { tool: 'tool3' }),
      ),
    };
  } finally {
    await store.close();
  }
}

try {
  // Alternating rounds (the machine is shared: its load drifts), each on a fresh database; the median of each.
  const runs = { sqlite: [], postgres1: [], postgres2: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    runs.sqlite.push(await ingestRun('sqlite', join(tmp, `ingest-${round}.db`), 1));
    runs.postgres1.push(await ingestRun('postgres, one collector', schemaUrl(), 1));
    runs.postgres2.push(await ingestRun('postgres, two collectors', schemaUrl(), 2));
  }
  const median = (list, key) => {
    const sorted = list.map((run) => run[key]).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  };
  const sqlite = median(runs.sqlite, 'rate');
  const postgres1 = median(runs.postgres1, 'rate');
  const postgres2 = median(runs.postgres2, 'rate');
  const cpu = Object.fromEntries(
    Object.entries(runs).map(([name, list]) => [
      name,
      {
        collectorsMsPer1000: median(list, 'collectorsMsPer1000'),
        postgresMsPer1000: median(list, 'postgresMsPer1000'),
        ceiling: median(list, 'ceiling'),
      },
    ]),
  );
  const query = {
    sqlite: await queryRun('sqlite', join(tmp, 'query.db')),
    postgres: await queryRun('postgres', schemaUrl()),
  };
  const result = {
    ingest: {
      linesPerSecond: { sqlite, postgres1, postgres2 },
      postgresVsSqlite: Math.round((postgres1 / sqlite) * 100) / 100,
      twoVsOne: Math.round((postgres2 / postgres1) * 100) / 100,
      cores: cpus(),
      cpu,
      // What two collectors could add at most here: the cores' ceiling over one collector's rate.
      twoVsOneCeiling: Math.round((cpu.postgres1.ceiling / postgres1) * 100) / 100,
      rounds: ROUNDS,
    },
    query: { lines: QUERY_LINES, ...query },
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  await cleanup();
}
