// What production recording costs a server: an McpServer with an `echo` tool, plain and instrumented, driven by
// the SDK Client over linked in-memory transports (no I/O, so the recorder's own cost is all that differs).
// Both connections stay open; rounds alternate between them (order flipping each round). Target: instrumented p50
// ≤ 1.05 × plain p50. The recorder uploads to an in-process sink that checks every upload's stack: an upload
// reached from the transport decorator (the request path) would fail the run. `node bench/lib/instrument.mjs`
// runs it alone after `npm run build`.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { instrument } from '../../dist/instrument/index.js';
import { median, percentile } from './stats.mjs';

export const INSTRUMENT_BENCH_DEFAULTS = {
  /** Measured sequential calls per round and mode. */
  calls: 10_000,
  /** Unmeasured calls per mode before the first round. */
  warmup: 2_000,
  /** Rounds; each runs `calls` on each mode, the order alternating (many, because one round's ratio swings ±15 %). */
  rounds: 20,
  /** Calls between yields to the event loop, which let the recorder's timers process and upload (0: only after each block). */
  interleave: 500,
  /** instrumented p50 / plain p50: at most this. */
  target: 1.05,
};

/** Frames that belong to the request path: the transport decorator and the connection tap. */
const REQUEST_PATH = /instrument\/(transport|tap)\.js/;

function echoServer() {
  const server = new McpServer({ name: 'bench-echo', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: 'text', text: `Echo: ${message}` }],
  }));
  return server;
}

/** A sink that counts events and uploads, and remembers any upload made from the request path. */
function checkingSink() {
  const sink = {
    name: 'bench',
    events: 0,
    uploads: 0,
    onRequestPath: 0,
    async write(events) {
      sink.uploads += 1;
      sink.events += events.length;
      if (REQUEST_PATH.test(new Error().stack ?? '')) sink.onRequestPath += 1;
    },
  };
  return sink;
}

/** A server and a connected client for one mode; both modes stay connected for the whole run. */
async function connect(mode) {
  const server = echoServer();
  const sink = checkingSink();
  const recorder = mode === 'instrumented' ? instrument(server, { to: { type: 'sink', sink } }) : undefined;
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'bench', version: '0.0.0' });
  await client.connect(clientSide);
  return { mode, client, recorder, sink };
}

const ARGS = { name: 'echo', arguments: { message: 'hello from the bench' } };
const EXPECTED = `Echo: ${ARGS.arguments.message}`;

/**
 * `calls` sequential calls (the latency of each, in ms), then whatever the recorder has queued is processed and
 * uploaded. In-memory calls never leave the microtask queue, so the recorder's timers only run between blocks —
 * unless `interleave` > 0 yields to the event loop every that many calls, letting processing run among the
 * measured calls (on the same thread, as it does between requests on a real server). CPU time per call covers the
 * block and the processing after it: the whole cost.
 */
async function block({ client, recorder }, calls, interleave) {
  const samples = new Float64Array(calls);
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < calls; i += 1) {
    const t0 = performance.now();
    const result = await client.callTool(ARGS);
    samples[i] = performance.now() - t0;
    if (result.content[0].text !== EXPECTED)
      throw new Error(`unexpected echo result ${JSON.stringify(result)}`);
    if (interleave > 0 && i % interleave === interleave - 1)
      await new Promise((resolve) => setImmediate(resolve));
  }
  await recorder?.flush();
  await new Promise((resolve) => setImmediate(resolve));
  const cpu = process.cpuUsage(cpuBefore);
  return { samples: samples.sort(), cpuUsPerCall: (cpu.user + cpu.system) / calls };
}

/** Alternating rounds of both modes; medians of the per-round p50s and of CPU per call. */
async function compare(connections, { calls, rounds, interleave, label }, log) {
  const results = [];
  for (let r = 1; r <= rounds; r += 1) {
    // Alternate which mode goes first, so drift within a round favours neither.
    const order = r % 2 === 1 ? ['plain', 'instrumented'] : ['instrumented', 'plain'];
    for (const mode of order) {
      const { samples, cpuUsPerCall } = await block(connections[mode], calls, interleave);
      const result = {
        round: r,
        mode,
        p50: percentile(samples, 50),
        p95: percentile(samples, 95),
        cpuUsPerCall,
      };
      results.push(result);
      log(
        `instrument${label} round ${r} ${mode.padEnd(12)} p50 ${(result.p50 * 1000).toFixed(2)} µs  ` +
          `p95 ${(result.p95 * 1000).toFixed(2)} µs  CPU ${cpuUsPerCall.toFixed(1)} µs/call`,
      );
    }
  }
  const of = (mode) => results.filter((r) => r.mode === mode);
  const plainP50 = median(of('plain').map((r) => r.p50));
  const instrumentedP50 = median(of('instrumented').map((r) => r.p50));
  const paired = of('plain').map(
    (p) => results.find((r) => r.round === p.round && r.mode === 'instrumented').p50 / p.p50,
  );
  const plainCpu = median(of('plain').map((r) => r.cpuUsPerCall));
  const instrumentedCpu = median(of('instrumented').map((r) => r.cpuUsPerCall));
  return {
    interleave,
    plainP50Us: plainP50 * 1000,
    instrumentedP50Us: instrumentedP50 * 1000,
    ratio: instrumentedP50 / plainP50,
    ratioRange: [Math.min(...paired), Math.max(...paired)],
    /** The median of the per-round paired ratios: less swayed by drift across the run than `ratio`. */
    pairedRatio: median(paired),
    /** CPU per call, processing and uploads included: instrumented / plain, and the difference in µs. */
    cpuRatio: instrumentedCpu / plainCpu,
    cpuAddedUsPerCall: instrumentedCpu - plainCpu,
    rounds: results,
  };
}

function describe(label, r) {
  return (
    `${label}: p50 plain ${r.plainP50Us.toFixed(1)} µs, instrumented ${r.instrumentedP50Us.toFixed(1)} µs, ` +
    `ratio ${r.ratio.toFixed(3)}, paired ${r.pairedRatio.toFixed(3)} (rounds ${r.ratioRange.map((x) => x.toFixed(3)).join('–')}); ` +
    `CPU per call incl. processing ${r.cpuRatio.toFixed(2)}× (+${r.cpuAddedUsPerCall.toFixed(1)} µs)`
  );
}

/**
 * Runs the instrument benchmark: alternating rounds of `calls` on the plain and the instrumented server, the
 * recorder's processing running every `interleave` calls (and after each block). Returns the p50s and their ratio,
 * CPU per call with processing included, what was uploaded, and whether the target held, no upload ran on the
 * request path and every event arrived.
 */
export async function runInstrumentBench(options = {}) {
  const config = { ...INSTRUMENT_BENCH_DEFAULTS, ...options };
  const log = options.log ?? (() => {});
  const connections = { plain: await connect('plain'), instrumented: await connect('instrumented') };
  for (let i = 0; i < config.warmup; i += 500) {
    await block(connections.plain, 500, 0);
    await block(connections.instrumented, 500, 0);
  }
  const compared = await compare(
    connections,
    { calls: config.calls, rounds: config.rounds, interleave: config.interleave, label: '' },
    log,
  );
  const { recorder, sink } = connections.instrumented;
  await recorder.shutdown();
  await connections.plain.client.close();
  await connections.instrumented.client.close();

  // Every request of the instrumented connection, initialize and warm-up included, must have reached the sink.
  const expectedEvents = 1 + Math.ceil(config.warmup / 500) * 500 + config.rounds * config.calls;
  const result = {
    config,
    ...compared,
    uploads: sink.uploads,
    eventsDelivered: sink.events,
    onRequestPath: sink.onRequestPath,
    allDelivered: sink.events === expectedEvents,
  };
  delete result.config.log;
  result.pass = result.ratio <= config.target && result.onRequestPath === 0 && result.allDelivered;
  log(
    `instrument: ${describe(`processing every ${config.interleave} calls`, compared)}; target ≤ ${config.target}`,
  );
  log(
    `instrument: ${result.uploads} uploads, ${result.onRequestPath} on the request path, ` +
      `${result.allDelivered ? `all ${result.eventsDelivered} events delivered` : `EVENTS MISSING (${result.eventsDelivered} of ${expectedEvents})`}` +
      ` — ${result.pass ? 'pass' : 'FAIL'}`,
  );
  return result;
}

// `node bench/lib/instrument.mjs` runs it alone (after `npm run build`).
if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runInstrumentBench({ log: (line) => process.stderr.write(`${line}\n`) });
  process.exit(result.pass ? 0 : 1);
}
