// Start-up: how long a client waits for the first answer of a server it starts, with and without tapedeck, and how
// long `tapedeck --help` takes to run. Every round starts a fresh process per mode; modes alternate within a round
// (rotating which goes first); the bare figures of the same round are the baselines. `node bench/lib/startup.mjs`
// runs this part alone (JSON on stdout).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { track } from './processes.mjs';
import { median } from './stats.mjs';

const ROOT = new URL('../..', import.meta.url).pathname;
// The executable npm installs as `tapedeck`, as a client config runs it.
const BIN = join(ROOT, 'dist', 'cli', 'tapedeck.cjs');
const BARE = join(ROOT, 'bench', 'raw-echo-server.mjs');
// The floor of any wrapper written in Node: a process that only starts the server and pipes bytes. What it adds
// to the first answer is Node's own start before the server can be spawned; `record` is judged on top of it too.
const RELAY = join(ROOT, 'bench', 'pipe-relay.cjs');
const EVERYTHING = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);

/**
 * Targets: `record` adds at most this many ms (to the bare server's first answer, and beyond the bare relay's);
 * replay and help at most these multiples of their floors.
 */
export const STARTUP_TARGETS = { recordAddedMs: 40, replayRatio: 2, helpRatio: 2 };

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
})}\n`;

/**
 * Starts `args` (a Node script and its arguments) as a client would: writes initialize at once, and resolves to
 * the ms from spawn to the first whole line on stdout. Then closes stdin and waits for the process to exit.
 */
function firstAnswer(args) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    track(child.pid);
    child.stdin.on('error', () => {});
    child.stdin.write(INITIALIZE);
    let text = '';
    let ms;
    const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.stdout.on('data', (chunk) => {
      if (ms !== undefined) return;
      text += chunk;
      if (!text.includes('\n')) return;
      ms = Number(process.hrtime.bigint() - started) / 1e6;
      child.stdin.end();
    });
    child.once('error', reject);
    child.once('exit', () => {
      clearTimeout(kill);
      if (ms === undefined) reject(new Error(`no answer from ${args.join(' ')}`));
      else resolve(ms);
    });
  });
}

/** Runs `args` to its end (output read and dropped); resolves to the ms from spawn to exit. */
function untilExit(args) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    track(child.pid);
    child.stdout.resume();
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`${args.join(' ')} exited with ${code}`));
      else resolve(Number(process.hrtime.bigint() - started) / 1e6);
    });
  });
}

/**
 * Runs the start-up part: `rounds` rounds (after one warm-up round that is not counted) of every mode.
 * @param {{ rounds: number, log: (line: string) => void }} options
 */
export async function runStartupBench({ rounds, log }) {
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-startup-'));
  try {
    // The cassette replay serves: one initialize exchange, recorded through tapedeck from the bare server.
    const cassette = join(dir, 'cassette.jsonl');
    await firstAnswer([BIN, 'record', '--quiet', '--file', cassette, '--', process.execPath, BARE]);
    if (!readFileSync(cassette, 'utf8').includes('"type":"end"'))
      throw new Error('the cassette was not recorded');
    const trace = (name) => join(dir, `${name}.jsonl`);
    const modes = {
      node: () => untilExit(['-e', '0']),
      help: () => untilExit([BIN, '--help']),
      bare: () => firstAnswer([BARE]),
      replay: () => firstAnswer([BIN, 'replay', cassette]),
      everything: () => firstAnswer([EVERYTHING, 'stdio']),
      record: () =>
        firstAnswer([
          BIN,
          'record',
          '--quiet',
          '--file',
          trace('everything'),
          '--',
          process.execPath,
          EVERYTHING,
          'stdio',
        ]),
      relay: () => firstAnswer([RELAY, '--', process.execPath, EVERYTHING, 'stdio']),
      recordBare: () =>
        firstAnswer([BIN, 'record', '--quiet', '--file', trace('bare'), '--', process.execPath, BARE]),
      relayBare: () => firstAnswer([RELAY, '--', process.execPath, BARE]),
    };
    const names = Object.keys(modes);
    const samples = Object.fromEntries(names.map((name) => [name, []]));
    for (let round = 0; round <= rounds; round++) {
      const order = names.map((_, i) => names[(i + round) % names.length]);
      const row = {};
      for (const name of order) row[name] = await modes[name]();
      if (round === 0) continue;
      for (const name of names) samples[name].push(row[name]);
      log(`startup round ${round}: ${names.map((name) => `${name} ${row[name].toFixed(0)}`).join('  ')} ms`);
    }
    return summarize(samples, rounds);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function summarize(samples, rounds) {
  const byMode = Object.fromEntries(
    Object.entries(samples).map(([name, values]) => [
      name,
      { median: median(values), range: [Math.min(...values), Math.max(...values)] },
    ]),
  );
  // Per round, against the same round's baseline: how much the figures move together is how far to trust them.
  const paired = (f) => samples.node.map((_, i) => f(i)).sort((a, b) => a - b);
  const recordAdded = paired((i) => samples.record[i] - samples.everything[i]);
  const overRelay = paired((i) => samples.record[i] - samples.relay[i]);
  const replayRatio = paired((i) => samples.replay[i] / samples.bare[i]);
  const helpRatio = paired((i) => samples.help[i] / samples.node[i]);
  const recordAddedMs = byMode.record.median - byMode.everything.median;
  const relayAddedMs = byMode.relay.median - byMode.everything.median;
  const recordOverRelayMs = byMode.record.median - byMode.relay.median;
  const replay = byMode.replay.median / byMode.bare.median;
  const help = byMode.help.median / byMode.node.median;
  return {
    rounds,
    byMode,
    recordAddedMs,
    recordAddedRange: [recordAdded[0], recordAdded.at(-1)],
    relayAddedMs,
    recordOverRelayMs,
    recordOverRelayRange: [overRelay[0], overRelay.at(-1)],
    recordBareAddedMs: byMode.recordBare.median - byMode.bare.median,
    relayBareAddedMs: byMode.relayBare.median - byMode.bare.median,
    replayRatio: replay,
    replayRatioRange: [replayRatio[0], replayRatio.at(-1)],
    helpRatio: help,
    helpRatioRange: [helpRatio[0], helpRatio.at(-1)],
    targets: STARTUP_TARGETS,
    pass: {
      record: recordAddedMs <= STARTUP_TARGETS.recordAddedMs,
      recordOverRelay: recordOverRelayMs <= STARTUP_TARGETS.recordAddedMs,
      replay: replay <= STARTUP_TARGETS.replayRatio,
      help: help <= STARTUP_TARGETS.helpRatio,
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rounds = Number(process.env.BENCH_STARTUP_ROUNDS ?? 15);
  const result = await runStartupBench({ rounds, log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  process.exit(0);
}
