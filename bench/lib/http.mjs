import { spawn } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfig } from './config.mjs';
import { measure } from './drive.mjs';
import { CLI, EVERYTHING_SERVER, ROOT } from './modes.mjs';
import { cpuMs, killSurvivors, reap, track } from './processes.mjs';
import { compareModes } from './stats.mjs';
import { checkTrace } from './trace-check.mjs';

const ECHO = { name: 'echo', arguments: { message: 'hello from the bench' } };
const EXPECTED = `Echo: ${ECHO.arguments.message}`;
/**
 * With `config.relay` on, two floors run too: `relay` (a bare Node reverse proxy, bench/http-relay.mjs), the cost
 * of one extra HTTP hop, and `tcp` (bench/tcp-relay.mjs, bytes only), the hop without HTTP parsed in it.
 */
const modesFor = (config) => (config.relay ? ['direct', 'tcp', 'relay', 'proxy'] : ['direct', 'proxy']);

/**
 * The HTTP part: the official SDK Client over Streamable HTTP against server-everything (`streamableHttp`, one
 * server for the whole part), directly and through `tapedeck record --upstream` (the built CLI, a fresh proxy and
 * trace file per round). Echo tools/call, sequential (latency) then `concurrency` in flight (throughput); rounds
 * alternate direct / proxy (after one uncounted direct round), each on a fresh session; medians over rounds and
 * per-round paired ratios.
 * A proxy round only counts if its trace holds every message it forwarded and ends with an `end` line.
 *
 * @example const http = await runHttpBench(loadConfig()); http.ratios.proxy.p50 // e.g. 1.08
 */
export async function runHttpBench(
  config,
  tmp = undefined,
  log = (line) => process.stderr.write(`${line}\n`),
) {
  const ownTmp = tmp === undefined ? mkdtempSync(join(tmpdir(), 'tapedeck-bench-http-')) : undefined;
  const dir = tmp ?? ownTmp;
  const server = await startEverything();
  log(`http: server-everything streamableHttp on ${server.url}`);
  try {
    // A fresh server-everything gets faster for thousands of calls (JIT); one direct round first, not counted,
    // so the first counted direct round is not the slowest by construction.
    await httpRound({ mode: 'direct', round: 0, config, upstream: server.url, tmp: dir });
    log('http warm-up round done (not counted)');
    const rounds = [];
    for (let round = 1; round <= config.httpRounds; round += 1) {
      for (const mode of modesFor(config)) {
        const r = await httpRound({ mode, round, config, upstream: server.url, tmp: dir });
        rounds.push(r);
        const cpu =
          r.hopCpuUsPerCall !== undefined ? `  hop CPU ${r.hopCpuUsPerCall.toFixed(1)} µs/call` : '';
        const trace = r.traceLines !== undefined ? `  trace ${r.traceMessages} msgs` : '';
        log(
          `http round ${round} ${mode.padEnd(6)} seq p50 ${r.seq.p50.toFixed(3)} ms  p95 ${r.seq.p95.toFixed(3)} ms  ` +
            `${config.concurrency}-in-flight ${Math.round(r.conc.throughput)}/s${cpu}${trace}`,
        );
      }
    }
    assertRecorded(rounds, config);
    return { ...compareModes(rounds, modesFor(config)), rounds };
  } finally {
    await server.stop();
    if (ownTmp !== undefined) rmSync(ownTmp, { recursive: true, force: true });
  }
}

/** Every forwarded message in the trace: initialize + initialized, then a request and its answer per call. */
function assertRecorded(rounds, config) {
  const expected = 2 * (2 * config.httpCalls + 2 * config.httpWarmup);
  for (const r of rounds.filter((x) => x.mode === 'proxy')) {
    if (r.traceMessages < expected || !r.traceEnded) {
      throw new Error(
        `http round ${r.round}: trace holds ${r.traceMessages} messages (expected ≥ ${expected}), end line ${r.traceEnded ? 'present' : 'missing'}`,
      );
    }
  }
}

/**
 * fetch, minus a warning flood: the transport passes one long-lived AbortSignal to every request, and fetch
 * detaches its abort listener only when a request is garbage-collected, so thousands of calls pass Node's listener
 * warning threshold (1500, set by fetch itself). No limit on that signal; same for both modes.
 */
function quietFetch(url, init) {
  if (init?.signal) setMaxListeners(0, init.signal);
  return fetch(url, init);
}

/** One round of one mode on a fresh session (and, for `proxy`, a fresh recording proxy). */
async function httpRound({ mode, round, config, upstream, tmp }) {
  const traceFile = join(tmp, `http-${mode}-${round}.jsonl`);
  const proxy =
    mode === 'proxy'
      ? await startProxy(upstream, traceFile)
      : mode === 'relay' || mode === 'tcp'
        ? await startRelay(upstream, mode === 'tcp' ? 'tcp-relay.mjs' : 'http-relay.mjs')
        : undefined;
  const client = new Client({ name: 'tapedeck-bench', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(proxy?.url ?? upstream), { fetch: quietFetch });
  try {
    await client.connect(transport);
    const call = async () => {
      const result = await client.callTool(ECHO);
      if (result.content?.[0]?.text !== EXPECTED)
        throw new Error(`unexpected echo result ${JSON.stringify(result)}`);
    };
    const hop = proxy ? () => cpuMs(proxy.pid) : undefined;
    const figures = await measure(
      call,
      { ...config, calls: config.httpCalls, warmup: config.httpWarmup },
      hop,
    );
    // Ends the server's session too, so sessions do not pile up in the one server across rounds.
    await transport.terminateSession().catch(() => {});
    await client.close();
    if (proxy) await proxy.stop();
    return { mode, round, ...figures, ...(mode === 'proxy' ? checkTrace(traceFile) : {}) };
  } finally {
    await client.close().catch(() => {});
    if (proxy) await proxy.stop();
  }
}

/** `tapedeck record --upstream URL --listen 127.0.0.1:0 --file F`, once it says where it listens. */
async function startProxy(upstream, traceFile) {
  const args = [
    ...profileArgs(),
    CLI,
    'record',
    '--upstream',
    upstream,
    '--listen',
    '127.0.0.1:0',
    '--file',
    traceFile,
  ];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  track(child.pid);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const url = await waitForLine(
    child,
    exited,
    /tapedeck: recording (http:\/\/\S+) → /,
    'tapedeck record --upstream',
  );
  let stopping;
  return {
    url,
    pid: child.pid,
    // SIGTERM: the proxy closes its listener and writes the trace's end line, then exits 0.
    stop: () => {
      stopping ??= (async () => {
        child.kill('SIGTERM');
        const code = await exited;
        if (code !== 0) throw new Error(`tapedeck record --upstream exited with ${code}`);
      })();
      return stopping;
    },
  };
}

/** A bare relay (bench/<script>) in front of `upstream`, once it says where it listens. */
async function startRelay(upstream, script) {
  const child = spawn(process.execPath, [join(ROOT, 'bench', script), upstream], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  track(child.pid);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const url = await waitForLine(child, exited, /relay (http:\/\/\S+)/, `bench/${script}`);
  let stopping;
  return {
    url: `${url}${new URL(upstream).pathname}`,
    pid: child.pid,
    stop: () => {
      stopping ??= (async () => {
        child.kill('SIGTERM');
        await exited;
      })();
      return stopping;
    },
  };
}

/** server-everything in Streamable HTTP mode on a free port (PORT set: it binds every interface). */
async function startEverything() {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_SERVER, 'streamableHttp'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  track(child.pid);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  await waitForLine(child, exited, /listening on port/i, 'server-everything streamableHttp');
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
      const left = await reap();
      if (left > 0) process.stderr.write(`bench: killed ${left} leftover process(es) after http\n`);
    },
  };
}

/** Resolves with the first capture group of `pattern` once the child's stderr shows it; rejects if it exits. */
function waitForLine(child, exited, pattern, what) {
  return new Promise((resolve, reject) => {
    let text = '';
    let settled = false;
    const timer = setTimeout(() => fail(new Error(`${what} did not start within 15 s:\n${text}`)), 15_000);
    const fail = (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(err);
    };
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      if (settled) return;
      text += chunk;
      const match = pattern.exec(text);
      if (match) {
        settled = true;
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then((code) => fail(new Error(`${what} exited with ${code} before it listened:\n${text}`)));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** BENCH_PROF_DIR=<dir>: the recording proxy runs under `--cpu-prof` too. */
function profileArgs() {
  const dir = process.env.BENCH_PROF_DIR;
  return dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
}

// `node bench/lib/http.mjs` (after `npm run build`): this part alone, progress on stderr, medians and ratios as
// JSON on stdout.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.on('exit', killSurvivors);
  runHttpBench(loadConfig()).then(
    ({ byMode, ratios }) => {
      process.stdout.write(`${JSON.stringify({ byMode, ratios }, null, 2)}\n`);
      process.exit(0);
    },
    (err) => {
      process.stderr.write(`bench: ${err?.stack ?? err}\n`);
      process.exit(1);
    },
  );
}
