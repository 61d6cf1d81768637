// `npm run bench`: what recording costs, measured against a direct connection in the same process, modes
// alternating round by round (timing on small shared machines drifts by tens of percent between runs, so only
// same-run ratios mean anything). Knobs: see bench/lib/config.mjs (BENCH_CALLS, BENCH_ROUNDS, …).
// Prints progress on stderr, the summary table on stdout; `--json` prints the results as JSON instead.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCollectorBench } from './lib/collector.mjs';
import { loadConfig, TARGETS } from './lib/config.mjs';
import { runDiffBench } from './lib/diff.mjs';
import { runGatesBench } from './lib/gates.mjs';
import { runHttpBench } from './lib/http.mjs';
import { runInstrumentBench } from './lib/instrument.mjs';
import { modeList } from './lib/modes.mjs';
import { killSurvivors } from './lib/processes.mjs';
import { bigRound, rawRound } from './lib/raw-echo.mjs';
import { redactBench } from './lib/redact.mjs';
import { replayBench } from './lib/replay.mjs';
import { judge, judgeHttp, judgeRedaction, judgeReplay, renderSummary } from './lib/report.mjs';
import { sdkRound } from './lib/sdk-echo.mjs';
import { runStartupBench } from './lib/startup.mjs';
import { compareModes } from './lib/stats.mjs';
import { storeBench, storeVerdicts } from './lib/store.mjs';
import { CHROMIUM, runViewerBench } from './lib/viewer.mjs';
import { runBigViewerBench } from './lib/viewer-big.mjs';
import { runDenseViewerBench } from './lib/viewer-dense.mjs';
import { writerBench } from './lib/writer.mjs';

const json = process.argv.includes('--json');
const log = (line) => process.stderr.write(`${line}\n`);

let config;
try {
  config = loadConfig();
} catch (err) {
  log(`bench: ${err.message}`);
  process.exit(2);
}

const tmp = mkdtempSync(join(tmpdir(), 'tapedeck-bench-'));
const cleanup = () => {
  killSurvivors();
  rmSync(tmp, { recursive: true, force: true });
};
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    log(`bench: ${signal}, stopping`);
    process.exit(130);
  });
}

/** Runs `rounds` rounds, every mode once per round in a fixed order, each on a fresh connection. */
async function alternate(name, runRound) {
  const modes = modeList(config);
  const rounds = [];
  for (let round = 1; round <= config.rounds; round += 1) {
    for (const mode of modes) {
      const result = await runRound({ mode, round, config, tmp });
      rounds.push(result);
      const trace = result.traceLines !== undefined ? `  trace ${result.traceMessages} msgs` : '';
      const cpu =
        result.hopCpuUsPerCall !== undefined ? `  hop CPU ${result.hopCpuUsPerCall.toFixed(1)} µs/call` : '';
      log(
        `${name} round ${round} ${mode.padEnd(6)} seq p50 ${result.seq.p50.toFixed(3)} ms  p95 ${result.seq.p95.toFixed(3)} ms  ` +
          `${config.concurrency}-in-flight ${Math.round(result.conc.throughput)}/s${cpu}${trace}`,
      );
    }
  }
  return rounds;
}

/** A proxy figure only counts if the proxy recorded every message it forwarded. */
function assertRecorded(name, rounds, calls, warmup = config.warmup) {
  const expected = 2 * (2 * calls + 2 * warmup);
  for (const r of rounds.filter((x) => x.mode === 'proxy')) {
    if (r.traceMessages < expected || !r.traceEnded) {
      throw new Error(
        `${name} round ${r.round}: trace holds ${r.traceMessages} messages (expected ≥ ${expected}), end line ${r.traceEnded ? 'present' : 'missing'}`,
      );
    }
  }
}

/** The recorder's CPU per 1 MB message against its target, beside the relay's. */
function judgeBig(big) {
  const proxyMs = big.byMode.proxy.hopCpuUsPerCall / 1000;
  const relayMs = big.byMode.relay?.hopCpuUsPerCall / 1000;
  return {
    proxyMs,
    relayMs,
    ratio: big.ratios.proxyVsRelay?.cpu,
    range: big.ratios.proxyVsRelay?.cpuRange,
    target: TARGETS.bigMessageCpuMs,
    pass: proxyMs <= TARGETS.bigMessageCpuMs,
  };
}

async function main() {
  const started = performance.now();
  log(`bench: ${JSON.stringify(config)}`);
  const sdkRounds = await alternate('sdk', sdkRound);
  assertRecorded('sdk', sdkRounds, config.calls);
  const rawRounds = await alternate('raw', rawRound);
  assertRecorded('raw', rawRounds, config.rawCalls);
  const bigRounds = config.bigCalls > 0 ? await alternate('raw 1 MB', bigRound) : undefined;
  if (bigRounds) assertRecorded('raw 1 MB', bigRounds, config.bigCalls, 3);
  const writer = await writerBench(config, tmp, (kind, round, r) =>
    log(
      `writer round ${round} ${kind.padEnd(10)} ${Math.round(r.linesPerSec)} lines/s  close ${r.closeMs.toFixed(1)} ms`,
    ),
  );
  const redaction = await redactBench(config, (line) => log(`redact ${line}`));
  const replay = config.replay ? await replayBench(config, tmp, log) : undefined;
  const http = config.http ? await runHttpBench(config, tmp, log) : undefined;
  const extras = await extraBenches(config);
  const modes = modeList(config);
  const sdk = { ...compareModes(sdkRounds, modes), rounds: sdkRounds };
  const raw = { ...compareModes(rawRounds, modes), rounds: rawRounds };
  const big = bigRounds ? { ...compareModes(bigRounds, modes), rounds: bigRounds } : undefined;
  const results = {
    node: process.version,
    config,
    targets: TARGETS,
    sdk,
    raw,
    big,
    writer,
    redaction,
    replay,
    http,
    verdicts: {
      sdk: judge(sdk),
      raw: judge(raw),
      ...(big ? { big: judgeBig(big) } : {}),
      writer: {
        linesPerSec: writer.sink.linesPerSec,
        target: TARGETS.sinkLinesPerSec,
        pass: writer.sink.linesPerSec >= TARGETS.sinkLinesPerSec,
      },
      redaction: judgeRedaction(redaction),
      ...(replay ? { replay: judgeReplay(replay) } : {}),
      ...(http ? { http: judgeHttp(http) } : {}),
      extras: extras.verdicts,
    },
    extras: extras.results,
    elapsedMs: performance.now() - started,
  };
  if (json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  else process.stdout.write(`\n${renderSummary(results)}\n`);
}

/**
 * The parts with absolute targets of their own (no direct run to compare with): collector ingest, diff of two
 * 10k-call traces, the viewer's first screen in Chromium, and an instrumented server against a plain one.
 */
async function extraBenches(config) {
  const results = {};
  const verdicts = [];
  if (config.collector) {
    const c = await runCollectorBench({ mb: config.collectorMb, log: (line) => log(line) });
    results.collector = c;
    verdicts.push({
      name: `collector ingest, ${Math.round(c.bytes / 1e6)} MB upload`,
      measured: `${Math.round(c.linesPerSec).toLocaleString('en-US')} lines/s`,
      goal: `≥ ${c.target.toLocaleString('en-US')} lines/s`,
      pass: c.ok,
    });
  }
  const database = process.env.TAPEDECK_BENCH_DATABASE_URL ?? process.env.TAPEDECK_TEST_DATABASE_URL;
  if (config.collector && database === undefined) {
    log('store engines: skipped, set TAPEDECK_BENCH_DATABASE_URL to a Postgres database to compare them');
  } else if (config.collector) {
    const s = storeBench(log);
    results.store = s;
    verdicts.push(...storeVerdicts(s));
  }
  if (config.diff) {
    const d = await runDiffBench({}, (line) => log(line));
    results.diff = { ...d, times: undefined };
    verdicts.push({
      name: `diff of two ${d.calls.toLocaleString('en-US')}-call traces (median)`,
      measured: `${Math.round(d.medianMs)} ms`,
      goal: `≤ ${d.targetMs} ms`,
      pass: d.pass,
    });
  }
  if (config.gates) {
    const g = await runGatesBench({ tmp, log: (line) => log(line) });
    results.gates = g;
    verdicts.push({
      name: `lint of a ${g.messages.toLocaleString('en-US')}-message trace (median; ${g.lint.linearity.toFixed(2)}× the half-size trace)`,
      measured: `${Math.round(g.lint.fullMs)} ms`,
      goal: `≤ ${g.lint.targetMs} ms`,
      pass: g.lint.pass,
    });
    verdicts.push({
      name: `lint linear in size: ${Math.round(g.lint.halfMs)} / ${Math.round(g.lint.fullMs)} / ${Math.round(g.lint.doubleMs)} ms for ${(g.messages / 2).toLocaleString('en-US')} / ${g.messages.toLocaleString('en-US')} / ${g.lint.doubleMessages.toLocaleString('en-US')} messages`,
      measured: `${g.lint.linearity.toFixed(2)}×, ${g.lint.doubling.toFixed(2)}× per doubling`,
      goal: `≤ ${g.lint.linearMax}× each`,
      pass: g.lint.linear,
    });
    verdicts.push({
      name: `drift against live server-everything vs the SDK's own start + listing (${Math.round(g.drift.driftMs)} vs ${Math.round(g.drift.directMs)} ms)`,
      measured: `${g.drift.ratio.toFixed(2)}×`,
      goal: `≤ ${g.drift.targetRatio}×`,
      pass: g.drift.pass,
    });
  }
  if (config.viewer && !existsSync(CHROMIUM)) {
    log(`viewer: skipped, no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
  } else if (config.viewer) {
    const v = await runViewerBench({ messages: config.viewerMessages, log: (line) => log(line) });
    results.viewer = { ...v, rounds: undefined };
    verdicts.push({
      name: `viewer first screen, ${v.messages.toLocaleString('en-US')} messages (${Math.round(v.bytes / 1e6)} MB)`,
      measured: `${Math.round(v.firstScreenMs)} ms`,
      goal: `≤ ${v.target} ms`,
      pass: v.pass,
    });
  }
  if (config.viewerBig && existsSync(CHROMIUM)) {
    const b = await runBigViewerBench({ messages: config.viewerBigMessages, log: (line) => log(line) });
    results.viewerBig = b;
    if (b.skipped)
      log(`viewer ${config.viewerBigMessages.toLocaleString('en-US')} messages: skipped, ${b.skipped}`);
    else verdicts.push(...bigViewerVerdicts(b));
  }
  if (config.viewerDense) {
    const d = await runDenseViewerBench({
      messages: config.viewerDenseMessages,
      small: config.viewerDenseSmall,
      log: (line) => log(line),
    });
    results.viewerDense = d;
    verdicts.push(...denseViewerVerdicts(d));
  }
  if (config.startup) {
    const s = await runStartupBench({ rounds: config.startupRounds, log: (line) => log(line) });
    results.startup = s;
    const ms = (v) => `${Math.round(v)} ms`;
    const x = (v) => `${v.toFixed(2)}×`;
    const { byMode: m } = s;
    verdicts.push({
      name: `record adds to server-everything's first answer (${ms(m.record.median)} vs ${ms(m.everything.median)})`,
      measured: `${ms(s.recordAddedMs)} (rounds ${ms(s.recordAddedRange[0])}–${ms(s.recordAddedRange[1])})`,
      goal: `≤ ${s.targets.recordAddedMs} ms`,
      pass: s.pass.record,
    });
    verdicts.push({
      name: `record beyond the bare pipe relay, the floor of any Node wrapper (relay adds ${ms(s.relayAddedMs)})`,
      measured: `${ms(s.recordOverRelayMs)} (rounds ${ms(s.recordOverRelayRange[0])}–${ms(s.recordOverRelayRange[1])})`,
      goal: `≤ ${s.targets.recordAddedMs} ms`,
      pass: s.pass.recordOverRelay,
    });
    verdicts.push({
      name: `replay's first answer / bare Node server's (${ms(m.replay.median)} vs ${ms(m.bare.median)})`,
      measured: `${x(s.replayRatio)} (${s.replayRatioRange.map((v) => v.toFixed(2)).join('–')})`,
      goal: `≤ ${s.targets.replayRatio}×`,
      pass: s.pass.replay,
    });
    verdicts.push({
      name: `tapedeck --help / node -e 0 (${ms(m.help.median)} vs ${ms(m.node.median)})`,
      measured: `${x(s.helpRatio)} (${s.helpRatioRange.map((v) => v.toFixed(2)).join('–')})`,
      goal: `≤ ${s.targets.helpRatio}×`,
      pass: s.pass.help,
    });
    verdicts.push({
      name: `(info) record adds to the bare Node server's first answer (${ms(m.recordBare.median)} vs ${ms(m.bare.median)}; the relay adds ${ms(s.relayBareAddedMs)})`,
      measured: ms(s.recordBareAddedMs),
      goal: '',
    });
  }
  if (config.instrument) {
    const i = await runInstrumentBench({ log: (line) => log(line) });
    results.instrument = { ...i, rounds: undefined };
    verdicts.push({
      name: 'instrumented/plain McpServer p50 (in-memory echo)',
      measured: `${i.ratio.toFixed(3)} (${i.ratioRange.map((x) => x.toFixed(2)).join('–')})`,
      goal: `≤ ${i.config.target}`,
      pass: i.pass,
    });
    verdicts.push({
      name: 'uploads on the request path',
      measured: String(i.onRequestPath),
      goal: '0',
      pass: i.onRequestPath === 0,
    });
  }
  return { results, verdicts };
}

/** The 1M-message viewer figures: paged against its targets, the whole file as the same-run baseline. */
function bigViewerVerdicts(b) {
  const size = `${(b.bytes / 1e9).toFixed(2)} GB`;
  const x = (v) => `${v.toFixed(2)}×`;
  const mb = (v) => `${Math.round(v / 1e6)} MB`;
  const p = b.paged;
  const out = [
    {
      name: `viewer first screen, ${b.messages.toLocaleString('en-US')} messages (${size}), paged (median)`,
      measured: `${Math.round(p.firstScreenMs)} ms (${p.firstScreenRange.map((v) => Math.round(v)).join('–')})`,
      goal: `≤ ${b.targets.firstScreenMs} ms`,
      pass: p.firstScreenMs <= b.targets.firstScreenMs && p.rowsOk,
    },
    {
      name: `viewer memory / file, paged (heap ${mb(p.heapBytes)}, renderer RSS +${mb(p.rssBytes)})`,
      measured: x(p.memoryRatio),
      goal: `≤ ${b.targets.memoryRatio}×`,
      pass: p.memoryRatio <= b.targets.memoryRatio,
    },
    {
      name: '(info) paged: index built, jump to the middle',
      measured: `${(p.loadedMs / 1000).toFixed(1)} s, ${Math.round(p.jumpMs)} ms`,
      goal: '',
    },
  ];
  const w = b.whole;
  if (w?.skipped)
    out.push({
      name: '(info) whole file in the browser (--no-paged)',
      measured: `skipped: ${w.skipped}`,
      goal: '',
    });
  else if (w)
    out.push({
      name: `(info) whole file (--no-paged): first screen, all read, memory / file (heap ${mb(w.heapBytes)})`,
      measured: `${Math.round(w.firstScreenMs)} ms, ${(w.loadedMs / 1000).toFixed(1)} s, ${x(w.memoryRatio)}`,
      goal: '',
    });
  return out;
}

/** The small-message viewer and stats figures against their targets, each size apart (the table shows them side by side). */
function denseViewerVerdicts(d) {
  const out = [];
  for (const size of d.sizes ?? [d]) {
    const c = size.current;
    const name = `viewer/stats ${size.messages.toLocaleString('en-US')} small messages`;
    const checks = [
      [
        'stats wall',
        c.statsMs,
        d.targets.statsMs,
        (v) => `${Math.round(v)} ms (${c.overFloor.toFixed(1)}× read floor)`,
      ],
      ['stats peak RSS', c.statsRssBytes, d.targets.statsRssBytes, (v) => `${Math.round(v / 2 ** 20)} MiB`],
    ];
    if (d.viewer)
      checks.push(
        ['first rows', c.firstRowsMs, d.targets.firstRowsMs, (v) => `${Math.round(v)} ms`],
        ['JS heap', c.heapBytes, d.targets.heapBytes, (v) => `${Math.round(v / 2 ** 20)} MiB`],
        ['click to detail', c.clickMs, d.targets.clickMs, (v) => `${Math.round(v)} ms`],
        [
          'search (slowest of rare word, 1 and 2 chars)',
          Math.max(c.searchMs, c.search1Ms, c.search2Ms),
          d.targets.searchMs,
          (v) => `${Math.round(v)} ms`,
        ],
      );
    // Only the largest trace is big enough that the server should page it; a smaller one is shown whole.
    const largest = size === (d.sizes ?? [d]).at(-1);
    if (d.viewer && largest)
      out.push({
        name: `${name}: opened paged`,
        measured: c.paged ? 'yes' : 'no',
        goal: 'yes',
        pass: c.paged,
      });
    out.push({
      name: `${name}: stats counted every message`,
      measured: c.countedOk ? 'yes' : 'no',
      goal: 'yes',
      pass: c.countedOk,
    });
    for (const [what, value, target, show] of checks)
      out.push({
        name: `${name}: ${what}`,
        measured: show(value),
        goal: `≤ ${show(target).replace(/ \(.*/, '')}`,
        pass: value <= target,
      });
  }
  return out;
}

main().then(
  () => process.exit(0),
  (err) => {
    log(`bench: ${err?.stack ?? err}`);
    process.exit(1);
  },
);
