import { alignTraces } from '../../dist/trace/align.js';
import { median } from './stats.mjs';

/** Two traces of this many tools/call exchanges each must line up within `targetMs`. */
export const DIFF_BENCH_DEFAULTS = { calls: 10_000, rounds: 5, targetMs: 1000 };

const BASE = Date.parse('2026-03-01T10:00:00.000Z');
const TOOLS = ['search', 'read_file', 'get-sum', 'echo', 'list_dir', 'fetch', 'write_file', 'grep'];

/** A small deterministic generator: the same traces every run. */
function random(seed) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/**
 * One call of an agent session: a tool out of a few, arguments out of a small range (so identical requests repeat,
 * as they do in real sessions), a result of a few hundred bytes.
 */
function call(next, n) {
  const name = TOOLS[Math.floor(next() * TOOLS.length)];
  const args = { query: `q${Math.floor(next() * 400)}`, limit: 10 + Math.floor(next() * 3) };
  const text = `${name} ${args.query}: ${'lorem ipsum dolor sit amet '.repeat(8)}#${n % 50}`;
  return {
    name,
    args,
    result: { content: [{ type: 'text', text }] },
    latencyMs: 5 + Math.floor(next() * 40),
  };
}

/** Trace lines for `calls` (meta, then each request and its response). */
function linesOf(calls, idBase) {
  const lines = [
    { v: 1, type: 'meta', startedAt: new Date(BASE).toISOString(), label: 'bench', transport: 'stdio' },
  ];
  let clock = 0;
  let seq = 0;
  calls.forEach((c, i) => {
    const id = idBase + i;
    clock += 50;
    lines.push({
      t: new Date(BASE + clock).toISOString(),
      seq: ++seq,
      dir: 'in',
      raw: {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: c.name, arguments: c.args, _meta: { progressToken: id } },
      },
    });
    clock += c.latencyMs;
    lines.push({
      t: new Date(BASE + clock).toISOString(),
      seq: ++seq,
      dir: 'out',
      raw: { jsonrpc: '2.0', id, result: c.result },
    });
  });
  return lines;
}

/**
 * Trace a, and trace b = a with about 1 % of the calls given another argument, 1 % another result, 1 % deleted and
 * 1 % new calls inserted; latencies drift as a new build's would.
 */
export function diffBenchTraces(calls = DIFF_BENCH_DEFAULTS.calls, seed = 42) {
  const next = random(seed);
  const a = Array.from({ length: calls }, (_, n) => call(next, n));
  const b = [];
  const edits = { changedArgs: 0, changedResults: 0, deleted: 0, inserted: 0 };
  for (const [n, c] of a.entries()) {
    const roll = next();
    const latencyMs = Math.max(1, c.latencyMs + Math.floor(next() * 11) - 5);
    if (roll < 0.01) {
      edits.deleted++;
      continue;
    }
    if (roll < 0.02) {
      edits.inserted++;
      b.push(call(next, n + 7));
    }
    if (roll >= 0.02 && roll < 0.03) {
      edits.changedArgs++;
      b.push({ ...c, args: { ...c.args, limit: 99 }, latencyMs });
    } else if (roll >= 0.03 && roll < 0.04) {
      edits.changedResults++;
      b.push({ ...c, result: { content: [{ type: 'text', text: 'something else' }] }, latencyMs });
    } else b.push({ ...c, latencyMs });
  }
  return { a: linesOf(a, 1), b: linesOf(b, 100_001), edits, calls: a };
}

/** b = the same calls in a shuffled order: nearly nothing lines up, the alignment's worst case. */
function shuffledTraces(calls, seed = 7) {
  const next = random(seed);
  const order = [...calls];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return linesOf(order, 100_001);
}

/**
 * alignTraces on two generated 10k-call traces (pairing, keys, alignment, answer diffs), in process: median time
 * over `rounds`, against the 1 s target, and the counts it found. `reordered` is one run against the same calls
 * shuffled, for information (no target): the search budget keeps it bounded.
 *
 * @example const r = await runDiffBench(); r.pass // → true when the median is within 1 s
 */
export async function runDiffBench(options = {}, log = () => {}) {
  const { calls, rounds, targetMs } = { ...DIFF_BENCH_DEFAULTS, ...options };
  const { a, b, edits, calls: generated } = diffBenchTraces(calls);
  // One unmeasured round: the first run pays for compiling the code and growing the heap.
  alignTraces(a, b);
  const times = [];
  let summary;
  for (let round = 1; round <= rounds; round += 1) {
    const started = performance.now();
    summary = alignTraces(a, b).summary;
    const ms = performance.now() - started;
    times.push(ms);
    log(`diff round ${round}  ${calls} vs ${summary.requests.b} calls  ${ms.toFixed(1)} ms`);
  }
  const medianMs = median(times);
  const shuffled = shuffledTraces(generated);
  const started = performance.now();
  const worst = alignTraces(a, shuffled).summary;
  const reordered = { ms: performance.now() - started, summary: worst };
  log(`diff shuffled  ${calls} calls  ${reordered.ms.toFixed(1)} ms`);
  return { calls, rounds, edits, summary, times, medianMs, targetMs, pass: medianMs <= targetMs, reordered };
}
