import { TARGETS } from './config.mjs';

const fmt = {
  ms: (v) => (Number.isFinite(v) ? `${v.toFixed(3)} ms` : '—'),
  rate: (v) => (Number.isFinite(v) ? `${Math.round(v).toLocaleString('en-US')}/s` : '—'),
  ratio: (v) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '—'),
  range: ([a, b]) => (Number.isFinite(a) ? `${a.toFixed(2)}–${b.toFixed(2)}` : '—'),
  us: (v) => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${Math.round(v)} µs` : '—'),
};

export const verdict = (ok) => (ok ? 'PASS' : 'MISS');

/** Adds PASS/MISS against the targets to a comparison of modes. */
export function judge(comparison) {
  const proxy = comparison.ratios.proxy;
  const relay = comparison.ratios.proxyVsRelay;
  return {
    latency: { ratio: proxy.p50, target: TARGETS.latencyRatio, pass: proxy.p50 <= TARGETS.latencyRatio },
    ...(relay === undefined
      ? {}
      : {
          relay: {
            ratio: relay.p50,
            range: relay.p50Range,
            target: TARGETS.relayLatencyRatio,
            pass: relay.p50 <= TARGETS.relayLatencyRatio,
          },
          cpu: {
            ratio: relay.cpu,
            range: relay.cpuRange,
            target: TARGETS.hopCpuRatio,
            pass: relay.cpu <= TARGETS.hopCpuRatio,
          },
        }),
    throughput: {
      ratio: proxy.throughput,
      target: TARGETS.throughputRatio,
      pass: proxy.throughput >= TARGETS.throughputRatio,
    },
  };
}

/** PASS/MISS for the HTTP recording proxy (`record --upstream`) against its own targets. */
export function judgeHttp(comparison) {
  const proxy = comparison.ratios.proxy;
  return {
    latency: {
      ratio: proxy.p50,
      target: TARGETS.httpLatencyRatio,
      pass: proxy.p50 <= TARGETS.httpLatencyRatio,
    },
    throughput: {
      ratio: proxy.throughput,
      target: TARGETS.httpThroughputRatio,
      pass: proxy.throughput >= TARGETS.httpThroughputRatio,
    },
  };
}

/** PASS/MISS for the redaction engine against its targets. */
export function judgeRedaction(r) {
  return {
    messagesPerSec: {
      value: r.messagesPerSec,
      target: TARGETS.redactMessagesPerSec,
      pass: r.messagesPerSec >= TARGETS.redactMessagesPerSec,
    },
    base64Ms: { value: r.smallMs, target: TARGETS.redactBase64Ms, pass: r.smallMs <= TARGETS.redactBase64Ms },
    // Linear is the point. A 10 MB string sits in this machine's 32 MB cache and 100 MB does not, so one plain
    // memchr pass over each already differs by more than 10× here: within a quarter of that floor is linear too.
    scale: {
      value: r.scaleRatio,
      floor: r.floorRatio,
      target: TARGETS.redactScaleRatio,
      pass: r.scaleRatio <= TARGETS.redactScaleRatio || r.scaleRatio <= 1.25 * r.floorRatio,
    },
    // 10× the input: linear is about 10× the time; anything quadratic is 100×.
    adversarial: r.adversarial.map((row) => ({
      name: row.name,
      value: row.ratio,
      floor: row.floorRatio,
      target: TARGETS.redactAdversarialRatio,
      pass: row.ratio <= TARGETS.redactAdversarialRatio || row.ratio <= 1.25 * row.floorRatio,
    })),
  };
}

/** PASS/MISS for replay (in process and over stdio) against its targets. */
export function judgeReplay(r) {
  const at = (value, target, pass) => ({ value, target, pass });
  const { inProcess: p, stdio } = r;
  return {
    seqPerSec: at(p.seqPerSec, TARGETS.replayRequestsPerSec, p.seqPerSec >= TARGETS.replayRequestsPerSec),
    pipePerSec: at(p.pipePerSec, TARGETS.replayRequestsPerSec, p.pipePerSec >= TARGETS.replayRequestsPerSec),
    index: at(
      p.indexSecPer100Mb,
      TARGETS.replayIndexSecPer100Mb,
      p.indexSecPer100Mb <= TARGETS.replayIndexSecPer100Mb,
    ),
    memory: at(p.heapRatio, TARGETS.replayMemoryRatio, p.heapRatio <= TARGETS.replayMemoryRatio),
    latency: at(stdio.p50Ratio, TARGETS.replayLatencyRatio, stdio.p50Ratio <= TARGETS.replayLatencyRatio),
  };
}

function replaySection(config, r) {
  const p = r.inProcess;
  const mb = (v) => `${(v / 1e6).toFixed(1)} MB`;
  const s = (v) => `${(v / 1000).toFixed(2)} s`;
  const inProcess = table([
    ['replayTransport, in process', 'measured'],
    [`cassette: ${p.exchanges.toLocaleString('en-US')} tools/call exchanges + initialize`, mb(p.bytes)],
    [
      'index build: loadCassette (openTrace + buildCassette)',
      `${s(p.loadMs)} (${p.loadSecPer100Mb.toFixed(2)} s / 100 MB)`,
    ],
    ['index build: engine (matcher keys)', `${s(p.engineMs)} (${p.engineSecPer100Mb.toFixed(2)} s / 100 MB)`],
    ['kept after GC: heap + external', `${mb(p.heapDelta)} (${fmt.ratio(p.heapRatio)} file)`],
    ['RSS growth', `${mb(p.rssDelta)} (${fmt.ratio(p.rssRatio)} file)`],
    [`requests, 1 in flight (${p.seqCalls.toLocaleString('en-US')})`, fmt.rate(p.seqPerSec)],
    [`requests, ${p.inFlight} in flight (${p.pipeCalls.toLocaleString('en-US')})`, fmt.rate(p.pipePerSec)],
    [
      'requests over a trivial in-memory server, same client and process (1 / N in flight)',
      `${fmt.ratio(p.seqOverFloor)} / ${fmt.ratio(p.pipeOverFloor)}`,
    ],
  ]);
  const st = r.stdio;
  const rows = [['server', 'seq p50', 'seq p95', `${config.concurrency}-in-flight`]];
  for (const [name, m] of Object.entries(st.byMode)) {
    rows.push([name, fmt.ms(m.seqP50), fmt.ms(m.seqP95), fmt.rate(m.throughput)]);
  }
  return (
    `Replay in process — ${p.runs > 1 ? `the median of ${p.runs} runs, each in a fresh process (index build ${p.indexRange.map((v) => v.toFixed(2)).join('–')} s / 100 MB)` : 'one run'}\n${inProcess}\n\n` +
    `tapedeck replay (stdio) vs live server-everything — SDK Client echo, ${config.replayCalls} calls per phase, ` +
    `medians of ${config.replayRounds} rounds; cassette of ${st.recorded} recorded calls, --repeat last\n${table(rows)}`
  );
}

function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows
    .map((r, i) => {
      const line = r.map((cell, c) =>
        c === 0 ? String(cell).padEnd(widths[c]) : String(cell).padStart(widths[c]),
      );
      return i === 0 ? `${line.join('  ')}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line.join('  ');
    })
    .join('\n');
}

function modeTable(title, comparison, calls, concurrency) {
  const rows = [
    [
      'mode',
      'seq p50',
      'seq p95',
      `${concurrency}-in-flight`,
      'p50 ×direct',
      'p50 added',
      'tput ×direct',
      'hop CPU/call',
    ],
  ];
  for (const [mode, m] of Object.entries(comparison.byMode)) {
    const r = comparison.ratios[mode];
    rows.push([
      mode,
      fmt.ms(m.seqP50),
      fmt.ms(m.seqP95),
      fmt.rate(m.throughput),
      r ? `${fmt.ratio(r.p50)} (${fmt.range(r.p50Range)})` : '',
      r ? fmt.us(r.addedP50Us) : '',
      r ? `${fmt.ratio(r.throughput)} (${fmt.range(r.throughputRange)})` : '',
      Number.isFinite(m.hopCpuUsPerCall) ? `${m.hopCpuUsPerCall.toFixed(1)} µs` : '',
    ]);
  }
  return `${title} — ${calls} calls per phase, medians of ${comparison.byMode.direct.rounds} rounds; (range) = per-round paired ratios\n${table(rows)}`;
}

/**
 * The viewer and `tapedeck stats` on small-message traces, each size a column side by side (100k beside 1M), each
 * figure against its target; ratios against a baseline build when one was measured.
 */
export function denseTable(dense) {
  const sizes = dense.sizes ?? [dense];
  const t = dense.targets;
  const ms = (v) => (Number.isFinite(v) ? `${Math.round(v)} ms` : '—');
  const mib = (v) => (Number.isFinite(v) ? `${Math.round(v / 2 ** 20)} MiB` : '—');
  const cell = (size, key, show, target) => {
    const v = size.current[key];
    if (v === undefined) return '—';
    const against = size.ratios?.[key] === undefined ? '' : ` (${size.ratios[key].toFixed(2)}× base)`;
    return `${show(v)}${against}${target !== undefined && v > target ? ' MISS' : ''}`;
  };
  const figures = [
    ['first rows', 'firstRowsMs', ms, t.firstRowsMs, `≤ ${t.firstRowsMs} ms`],
    ['JS heap with backing stores', 'heapBytes', mib, t.heapBytes, `≤ ${mib(t.heapBytes)}`],
    ['click to detail', 'clickMs', ms, t.clickMs, `≤ ${t.clickMs} ms`],
    ['whole trace indexed / read', 'loadedMs', ms, undefined, ''],
    ['search, a rare word', 'searchMs', ms, t.searchMs, `≤ ${t.searchMs} ms`],
    ['search, one character (q)', 'search1Ms', ms, t.searchMs, `≤ ${t.searchMs} ms`],
    ['search, two characters (w7)', 'search2Ms', ms, t.searchMs, `≤ ${t.searchMs} ms`],
    ['… a rare word, to its count', 'searchCountMs', ms, undefined, ''],
    ['… one character, to its count', 'search1CountMs', ms, undefined, ''],
    ['… two characters, to its count', 'search2CountMs', ms, undefined, ''],
    ['tapedeck stats --json, wall', 'statsMs', ms, t.statsMs, `≤ ${t.statsMs} ms`],
    ['tapedeck stats, peak RSS', 'statsRssBytes', mib, t.statsRssBytes, `≤ ${mib(t.statsRssBytes)}`],
    ['read floor (Node reads the file, counts lines)', 'floorMs', ms, undefined, ''],
    ['stats / read floor', 'overFloor', (v) => `${v.toFixed(1)}×`, undefined, ''],
  ];
  const rows = [
    [
      'figure',
      ...sizes.map((s) => `${s.messages.toLocaleString('en-US')} msgs (${Math.round(s.bytes / 1e6)} MB)`),
      'goal',
    ],
    [
      'opened paged',
      ...sizes.map((s) => (s.current.paged === undefined ? '—' : s.current.paged ? 'yes' : 'no')),
      '',
    ],
    ...figures.map(([name, key, show, target, goal]) => [
      name,
      ...sizes.map((s) => cell(s, key, show, target)),
      goal,
    ]),
  ];
  return `Viewer and stats on small-message traces — ${dense.pass ? 'all targets met' : 'a target missed'}\n${table(rows)}`;
}

/** The human summary printed at the end of a run. */
export function renderSummary(results) {
  const { config, sdk, raw, writer } = results;
  const out = [];
  out.push(
    modeTable('SDK Client ↔ server-everything, echo over stdio', sdk, config.calls, config.concurrency),
  );
  out.push('');
  out.push(
    modeTable('Raw echo floor (hand-written client and server)', raw, config.rawCalls, config.concurrency),
  );
  out.push('');
  if (results.big) {
    out.push(
      modeTable(
        '1 MB messages (raw client and server, 1 MB of text each way)',
        results.big,
        config.bigCalls,
        2,
      ),
    );
    out.push('');
  }
  out.push(
    `Trace writer — ${config.writerLines.toLocaleString('en-US')} lines of ~${config.lineBytes} B, medians of ${config.writerRounds} rounds\n${table(
      [
        ['path', 'lines/s', 'MB/s', 'B/line', 'close+fsync'],
        ...[
          ['FileSink.append', writer.sink],
          ['PipeCapture → FileSink, 64 KiB reads', writer.capture],
          ['PipeCapture → FileSink, 1 msg/read', writer.captureSeq],
        ].map(([name, w]) => [
          name,
          fmt.rate(w.linesPerSec),
          w.mbPerSec.toFixed(1),
          Math.round(w.bytesPerLine),
          fmt.ms(w.closeMs),
        ]),
      ],
    )}`,
  );
  out.push('');
  const r = results.redaction;
  out.push(
    `Redaction, default rules, in process — medians of ${config.redactRounds} rounds\n${table([
      ['input', 'measured'],
      [
        `typical tools/call (${r.messageBytes} B), ${config.redactMessages.toLocaleString('en-US')} per round`,
        fmt.rate(r.messagesPerSec),
      ],
      [`the same with a percent-encoded URL (${r.encodedBytes} B)`, fmt.rate(r.encodedPerSec)],
      ...(r.baseline
        ? [
            [
              `this build / ${r.baseline.entry} (same process, alternating): typical`,
              fmt.ratio(r.baseline.typical.ratio),
            ],
            ['… with a percent-encoded URL', fmt.ratio(r.baseline.encoded.ratio)],
          ]
        : []),
      [`base64 image, ${r.smallMb} MB`, fmt.ms(r.smallMs)],
      [`base64 image, ${r.bigMb} MB`, fmt.ms(r.bigMs)],
      [
        `one memchr pass, ${r.smallMb} MB / ${r.bigMb} MB (the memory floor)`,
        `${fmt.ms(r.floorSmallMs)} / ${fmt.ms(r.floorBigMs)}`,
      ],
    ])}`,
  );
  out.push('');
  if (results.replay) {
    out.push(replaySection(config, results.replay));
    out.push('');
  }
  if (results.http) {
    out.push(
      modeTable(
        'SDK Client ↔ server-everything, echo over Streamable HTTP (proxy = record --upstream)',
        results.http,
        config.httpCalls,
        config.concurrency,
      ),
    );
    out.push('');
  }
  if (results.extras?.viewerDense) {
    out.push(denseTable(results.extras.viewerDense));
    out.push('');
  }
  const rows = [['target', 'measured', 'goal', 'result']];
  for (const [name, cmp] of [
    ['SDK', results.verdicts.sdk],
    ['raw', results.verdicts.raw],
  ]) {
    rows.push([
      `${name} proxy/direct p50`,
      fmt.ratio(cmp.latency.ratio),
      `≤ ${cmp.latency.target}`,
      verdict(cmp.latency.pass),
    ]);
    if (cmp.relay !== undefined) {
      rows.push([
        `${name} proxy/relay p50`,
        `${fmt.ratio(cmp.relay.ratio)} (${fmt.range(cmp.relay.range)})`,
        `≤ ${cmp.relay.target}`,
        verdict(cmp.relay.pass),
      ]);
    }
    if (cmp.cpu !== undefined) {
      rows.push([
        `${name} hop CPU/call, proxy/relay`,
        `${fmt.ratio(cmp.cpu.ratio)} (${fmt.range(cmp.cpu.range)})`,
        `≤ ${cmp.cpu.target}`,
        verdict(cmp.cpu.pass),
      ]);
    }
    rows.push([
      `${name} proxy/direct throughput`,
      fmt.ratio(cmp.throughput.ratio),
      `≥ ${cmp.throughput.target}`,
      verdict(cmp.throughput.pass),
    ]);
  }
  const b = results.verdicts.big;
  if (b !== undefined) {
    rows.push([
      'recorder CPU per 1 MB message',
      `${b.proxyMs.toFixed(1)} ms (relay ${Number.isFinite(b.relayMs) ? `${b.relayMs.toFixed(1)} ms, ${fmt.ratio(b.ratio)} ${fmt.range(b.range)}` : 'not run'})`,
      `≤ ${b.target} ms`,
      verdict(b.pass),
    ]);
  }
  const w = results.verdicts.writer;
  rows.push(['FileSink lines/s', fmt.rate(w.linesPerSec), `≥ ${fmt.rate(w.target)}`, verdict(w.pass)]);
  const rv = results.verdicts.redaction;
  rows.push([
    'redaction 1 KB msgs/s',
    fmt.rate(rv.messagesPerSec.value),
    `≥ ${fmt.rate(rv.messagesPerSec.target)}`,
    verdict(rv.messagesPerSec.pass),
  ]);
  rows.push([
    `redaction ${r.smallMb} MB base64`,
    fmt.ms(rv.base64Ms.value),
    `≤ ${rv.base64Ms.target} ms`,
    verdict(rv.base64Ms.pass),
  ]);
  rows.push([
    `redaction time ${r.bigMb} MB / ${r.smallMb} MB (memory floor ${fmt.ratio(rv.scale.floor)})`,
    fmt.ratio(rv.scale.value),
    `≤ ${rv.scale.target}`,
    verdict(rv.scale.pass),
  ]);
  for (const row of rv.adversarial)
    rows.push([
      `redaction time 5 MB / 0.5 MB, ${row.name} (memory floor ${fmt.ratio(row.floor)})`,
      fmt.ratio(row.value),
      `≤ ${row.target}`,
      verdict(row.pass),
    ]);
  const pv = results.verdicts.replay;
  if (pv) {
    rows.push([
      'replayTransport req/s, 1 in flight',
      fmt.rate(pv.seqPerSec.value),
      `≥ ${fmt.rate(pv.seqPerSec.target)}`,
      verdict(pv.seqPerSec.pass),
    ]);
    rows.push([
      `replayTransport req/s, ${config.replayInFlight} in flight`,
      fmt.rate(pv.pipePerSec.value),
      `≥ ${fmt.rate(pv.pipePerSec.target)}`,
      verdict(pv.pipePerSec.pass),
    ]);
    rows.push([
      'replay index build per 100 MB',
      results.replay.inProcess.indexRange
        ? `${pv.index.value.toFixed(2)} s (${results.replay.inProcess.indexRange.map((v) => v.toFixed(2)).join('–')})`
        : `${pv.index.value.toFixed(2)} s`,
      `≤ ${pv.index.target} s`,
      verdict(pv.index.pass),
    ]);
    rows.push([
      'replay index memory / file size',
      fmt.ratio(pv.memory.value),
      `≤ ${pv.memory.target}`,
      verdict(pv.memory.pass),
    ]);
    rows.push([
      'replay/live p50 (stdio, SDK echo)',
      `${fmt.ratio(pv.latency.value)} (${fmt.range(results.replay.stdio.p50Range)})`,
      `≤ ${pv.latency.target}`,
      verdict(pv.latency.pass),
    ]);
    rows.push(['(info) replay RSS growth / file size', fmt.ratio(results.replay.inProcess.rssRatio), '', '']);
    const padded = results.replay.inProcess.padded;
    if (padded) {
      rows.push([
        `(info) replay index per 100 MB, ${config.replayAnswerBytes}-char answers`,
        `${padded.indexSecPer100Mb.toFixed(2)} s`,
        '',
        '',
      ]);
    }
  }
  const hv = results.verdicts.http;
  if (hv) {
    const r = results.http.ratios.proxy;
    rows.push([
      'HTTP proxy/direct p50',
      `${fmt.ratio(hv.latency.ratio)} (${fmt.range(r.p50Range)})`,
      `≤ ${hv.latency.target}`,
      verdict(hv.latency.pass),
    ]);
    rows.push([
      'HTTP proxy/direct throughput',
      `${fmt.ratio(hv.throughput.ratio)} (${fmt.range(r.throughputRange)})`,
      `≥ ${hv.throughput.target}`,
      verdict(hv.throughput.pass),
    ]);
  }
  for (const extra of results.verdicts.extras ?? []) {
    // An entry without a verdict is for information.
    rows.push([extra.name, extra.measured, extra.goal, extra.pass === undefined ? '' : verdict(extra.pass)]);
  }
  const http = results.http;
  for (const [mode, name] of [
    ['tcp', 'bare TCP relay'],
    ['relay', 'relay'],
  ]) {
    const ratios = http?.ratios[mode];
    if (ratios) {
      rows.push([
        `(info) HTTP ${name}/direct p50, throughput`,
        `${fmt.ratio(ratios.p50)}, ${fmt.ratio(ratios.throughput)}`,
        '',
        '',
      ]);
    }
  }
  if (http?.ratios.relay) {
    rows.push([
      '(info) HTTP proxy/relay p50, throughput',
      `${fmt.ratio(http.byMode.proxy.seqP50 / http.byMode.relay.seqP50)}, ${fmt.ratio(http.byMode.proxy.throughput / http.byMode.relay.throughput)}`,
      '',
      '',
    ]);
  }
  out.push(`Summary (${(results.elapsedMs / 1000).toFixed(1)} s total)\n${table(rows)}`);
  return out.join('\n');
}
