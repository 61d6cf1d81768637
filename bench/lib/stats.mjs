/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** p50/p95/mean of latency samples in ms. */
export function latencySummary(samples) {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), mean: sum / sorted.length };
}

/**
 * Folds per-round results of each mode into medians, and the ratios of a mode against `direct`: the ratio of the
 * medians (the headline) and the spread of the ratios of rounds run back to back (how much to trust it).
 */
export function compareModes(rounds, modes) {
  const byMode = {};
  for (const mode of modes) {
    const own = rounds.filter((r) => r.mode === mode);
    byMode[mode] = {
      rounds: own.length,
      seqP50: median(own.map((r) => r.seq.p50)),
      seqP95: median(own.map((r) => r.seq.p95)),
      concP50: median(own.map((r) => r.conc.p50)),
      throughput: median(own.map((r) => r.conc.throughput)),
      hopCpuUsPerCall: median(own.map((r) => r.hopCpuUsPerCall).filter((v) => v !== undefined)),
    };
  }
  const ratios = {};
  for (const mode of modes) {
    if (mode === 'direct') continue;
    const paired = pairRounds(rounds, 'direct', mode);
    ratios[mode] = {
      p50: byMode[mode].seqP50 / byMode.direct.seqP50,
      p95: byMode[mode].seqP95 / byMode.direct.seqP95,
      throughput: byMode[mode].throughput / byMode.direct.throughput,
      addedP50Us: (byMode[mode].seqP50 - byMode.direct.seqP50) * 1000,
      p50Range: range(paired.map(([d, m]) => m.seq.p50 / d.seq.p50)),
      throughputRange: range(paired.map(([d, m]) => m.conc.throughput / d.conc.throughput)),
    };
  }
  if (byMode.relay !== undefined && byMode.proxy !== undefined) {
    // Against the bare relay, the extra hop any recorder adds: what recording itself costs on top of it.
    const paired = pairRounds(rounds, 'relay', 'proxy');
    ratios.proxyVsRelay = {
      p50: byMode.proxy.seqP50 / byMode.relay.seqP50,
      p50Range: range(paired.map(([r, p]) => p.seq.p50 / r.seq.p50)),
      throughput: byMode.proxy.throughput / byMode.relay.throughput,
      // CPU of the process in the middle per call: the recorder's over the relay's.
      cpu: byMode.proxy.hopCpuUsPerCall / byMode.relay.hopCpuUsPerCall,
      cpuRange: range(paired.map(([r, p]) => p.hopCpuUsPerCall / r.hopCpuUsPerCall)),
    };
  }
  return { byMode, ratios };
}

function pairRounds(rounds, a, b) {
  const pairs = [];
  const indexes = [...new Set(rounds.map((r) => r.round))];
  for (const index of indexes) {
    const left = rounds.find((r) => r.round === index && r.mode === a);
    const right = rounds.find((r) => r.round === index && r.mode === b);
    if (left && right) pairs.push([left, right]);
  }
  return pairs;
}

function range(values) {
  if (values.length === 0) return [Number.NaN, Number.NaN];
  return [Math.min(...values), Math.max(...values)];
}
