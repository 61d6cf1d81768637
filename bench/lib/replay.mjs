import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { measure } from './drive.mjs';
import { CLI, EVERYTHING_SERVER, ROOT } from './modes.mjs';
import { reap, track } from './processes.mjs';
import { median } from './stats.mjs';

const WORKER = join(ROOT, 'bench/lib/replay-worker.mjs');
const ECHO = { name: 'echo', arguments: { message: 'hello from the bench' } };
const EXPECTED = `Echo: ${ECHO.arguments.message}`;

/** BENCH_PROF_DIR=<dir>: the in-process worker and `tapedeck replay` run under `--cpu-prof` too. */
function profileArgs() {
  const dir = process.env.BENCH_PROF_DIR;
  return dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
}

/**
 * The replay part: (1) replayTransport in process on a generated cassette of `replayExchanges` tools/call
 * exchanges — index build time and memory, requests/s sequential and pipelined; (2) `tapedeck replay` over stdio
 * against the live server-everything, SDK Client, sequential echo calls, rounds alternating live / replay.
 */
export async function replayBench(config, tmp, log) {
  const inProcess = await inProcessBench(config, tmp, log);
  const stdio = await stdioBench(config, tmp, log);
  return { inProcess, stdio };
}

/**
 * The in-process figures on the dense cassette (short answers: the most lines per MB), then — for information —
 * the index build on one whose answers are `replayAnswerBytes` long.
 */
async function inProcessBench(config, tmp, log) {
  const runs = [];
  for (let i = 0; i < Math.max(1, config.replayRuns ?? 1); i++)
    runs.push(await inProcessRun(config, tmp, log, 0));
  const dense = medianRun(runs);
  if (!config.replayAnswerBytes) return dense;
  const padded = await inProcessRun(config, tmp, log, config.replayAnswerBytes);
  return { ...dense, padded };
}

/** Runs bench/lib/replay-worker.mjs in its own process (clean heap for the memory figure). */
async function inProcessRun(config, tmp, log, answerBytes) {
  const cassette = join(tmp, `replay-100k-${answerBytes}.jsonl`);
  const args = [
    '--expose-gc',
    ...profileArgs(),
    WORKER,
    cassette,
    String(config.replayExchanges),
    String(config.replayInFlight),
    String(answerBytes),
  ];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  track(child.pid);
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    out += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    process.stderr.write(chunk);
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  await reap();
  if (code !== 0) throw new Error(`replay in-process worker exited with ${code}`);
  const r = JSON.parse(out.trim().split('\n').at(-1));
  const per100Mb = 1e8 / r.bytes;
  const answers = answerBytes > 0 ? `${answerBytes}-character answers` : 'short answers';
  log(
    `replay in-process (${answers}): ${Math.round(r.seqPerSec)} req/s sequential, ${Math.round(r.pipePerSec)} req/s ${r.inFlight} in flight; ` +
      `index ${(r.indexMs / 1000).toFixed(2)} s (${((r.indexMs * per100Mb) / 1000).toFixed(2)} s / 100 MB), ` +
      `heap ${(r.heapDelta / r.bytes).toFixed(2)}× file, rss ${(r.rssDelta / r.bytes).toFixed(2)}× file; ` +
      `over the in-memory floor in the same process ${(r.seqPerSec / r.floorSeqPerSec).toFixed(2)}× and ${(r.pipePerSec / r.floorPipePerSec).toFixed(2)}×`,
  );
  return {
    ...r,
    indexSecPer100Mb: (r.indexMs * per100Mb) / 1000,
    loadSecPer100Mb: (r.loadMs * per100Mb) / 1000,
    engineSecPer100Mb: (r.engineMs * per100Mb) / 1000,
    heapRatio: r.heapDelta / r.bytes,
    rssRatio: r.rssDelta / r.bytes,
    seqOverFloor: r.seqPerSec / r.floorSeqPerSec,
    pipeOverFloor: r.pipePerSec / r.floorPipePerSec,
  };
}

/**
 * The run with the median index build, with the median of each rate and ratio, and the range of index builds (the
 * runs are independent processes; none is favoured by a warm JIT).
 */
function medianRun(runs) {
  const byIndex = [...runs].sort((a, b) => a.indexSecPer100Mb - b.indexSecPer100Mb);
  const mid = byIndex[Math.floor(byIndex.length / 2)];
  const of = (key) => median(runs.map((r) => r[key]));
  return {
    ...mid,
    seqPerSec: of('seqPerSec'),
    pipePerSec: of('pipePerSec'),
    seqOverFloor: of('seqOverFloor'),
    pipeOverFloor: of('pipeOverFloor'),
    heapRatio: of('heapRatio'),
    rssRatio: of('rssRatio'),
    runs: runs.length,
    indexRange: [byIndex[0].indexSecPer100Mb, byIndex.at(-1).indexSecPer100Mb],
  };
}

async function connect(command, args) {
  const transport = new StdioClientTransport({ command, args, cwd: ROOT, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk;
  });
  const client = new Client({ name: 'tapedeck-bench', version: '0.0.0' });
  await client.connect(transport);
  track(transport.pid);
  const call = async () => {
    const result = await client.callTool(ECHO);
    if (result.content?.[0]?.text !== EXPECTED)
      throw new Error(`unexpected echo result ${JSON.stringify(result)}`);
  };
  return { client, call, stderr: () => stderr };
}

/** Records the cassette every replay round plays: initialize + warm-up + calls echo calls, sequential. */
async function recordCassette(config, file, log) {
  const node = process.execPath;
  const calls = config.replayRecord || config.replayWarmup + config.replayCalls;
  const session = await connect(node, [
    CLI,
    'record',
    '--file',
    file,
    '--',
    node,
    EVERYTHING_SERVER,
    'stdio',
  ]);
  try {
    for (let i = 0; i < calls; i += 1) await session.call();
  } finally {
    await session.client.close().catch(() => {});
    await reap();
  }
  const text = readFileSync(file, 'utf8');
  const recorded = text.split('"method":"tools/call"').length - 1;
  if (recorded < calls || !text.trimEnd().split('\n').at(-1).includes('"type":"end"')) {
    throw new Error(
      `replay stdio: the cassette holds ${recorded} tools/call requests (expected ${calls}) or no end line`,
    );
  }
  log(`replay stdio: recorded ${recorded} echo calls (${(text.length / 1e6).toFixed(1)} MB cassette)`);
  return calls;
}

/** One round: a fresh connection to the live server or to `tapedeck replay`, warm-up, `replayCalls` measured. */
async function stdioRound(mode, round, config, cassette) {
  const node = process.execPath;
  const args =
    mode === 'live'
      ? [EVERYTHING_SERVER, 'stdio']
      : [...profileArgs(), CLI, 'replay', cassette, '--allow-unused', '--repeat', 'last'];
  const session = await connect(node, args);
  try {
    const figures = await measure(session.call, {
      calls: config.replayCalls,
      warmup: config.replayWarmup,
      concurrency: config.concurrency,
    });
    await session.client.close();
    await reap();
    const misses = (session.stderr().match(/miss:/g) ?? []).length;
    if (misses > 0) throw new Error(`replay round ${round}: ${misses} misses:\n${session.stderr()}`);
    return { mode, round, ...figures };
  } finally {
    await session.client.close().catch(() => {});
    const left = await reap();
    if (left > 0) process.stderr.write(`bench: killed ${left} leftover process(es) after replay ${mode}\n`);
  }
}

async function stdioBench(config, tmp, log) {
  const cassette = join(tmp, 'replay-echo.jsonl');
  const recorded = await recordCassette(config, cassette, log);
  const rounds = [];
  for (let round = 1; round <= config.replayRounds; round += 1) {
    // Which mode goes first alternates, so neither always meets a machine the other has just warmed or loaded.
    for (const mode of round % 2 === 1 ? ['live', 'replay'] : ['replay', 'live']) {
      const r = await stdioRound(mode, round, config, cassette);
      rounds.push(r);
      log(
        `replay stdio round ${round} ${mode.padEnd(6)} seq p50 ${r.seq.p50.toFixed(3)} ms  p95 ${r.seq.p95.toFixed(3)} ms  ` +
          `${config.concurrency}-in-flight ${Math.round(r.conc.throughput)}/s`,
      );
    }
  }
  const byMode = {};
  for (const mode of ['live', 'replay']) {
    const own = rounds.filter((r) => r.mode === mode);
    byMode[mode] = {
      seqP50: median(own.map((r) => r.seq.p50)),
      seqP95: median(own.map((r) => r.seq.p95)),
      throughput: median(own.map((r) => r.conc.throughput)),
    };
  }
  const paired = [];
  for (let round = 1; round <= config.replayRounds; round += 1) {
    const live = rounds.find((r) => r.round === round && r.mode === 'live');
    const replay = rounds.find((r) => r.round === round && r.mode === 'replay');
    paired.push(replay.seq.p50 / live.seq.p50);
  }
  return {
    recorded,
    byMode,
    p50Ratio: byMode.replay.seqP50 / byMode.live.seqP50,
    p50Range: [Math.min(...paired), Math.max(...paired)],
    throughputRatio: byMode.replay.throughput / byMode.live.throughput,
    rounds,
  };
}
