import { latencySummary } from './stats.mjs';

/**
 * The measuring part every client shares: warm-up, `calls` sequential calls (latency of each), warm-up, `calls`
 * with `concurrency` in flight (throughput). `call` makes one request and resolves with its answer.
 * `cpuMs`, when given, reads the CPU time of the process in the middle (relay or proxy); its use during the two
 * measured phases is reported per call — a steadier figure than wall time on a shared machine.
 */
export async function measure(call, { calls, warmup, concurrency }, cpuMs = undefined) {
  let cpu = 0;
  const timed = async (phase) => {
    const before = cpuMs?.() ?? 0;
    const result = await phase();
    cpu += (cpuMs?.() ?? 0) - before;
    return result;
  };
  await sequential(call, warmup);
  const seq = latencySummary(await timed(() => sequential(call, calls)));
  await inFlight(call, warmup, concurrency);
  const started = performance.now();
  const samples = await timed(() => inFlight(call, calls, concurrency));
  const elapsedMs = performance.now() - started;
  const conc = { ...latencySummary(samples), throughput: (calls * 1000) / elapsedMs };
  return { seq, conc, ...(cpuMs ? { hopCpuUsPerCall: (cpu * 1000) / (2 * calls) } : {}) };
}

async function sequential(call, calls) {
  const samples = new Float64Array(calls);
  for (let i = 0; i < calls; i += 1) {
    const t0 = performance.now();
    await call();
    samples[i] = performance.now() - t0;
  }
  return samples;
}

async function inFlight(call, calls, concurrency) {
  const samples = new Float64Array(calls);
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      const i = next++;
      const t0 = performance.now();
      await call();
      samples[i] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, calls) }, worker));
  return samples;
}
