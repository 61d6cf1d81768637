import { type Exchange, percentile, toolName } from 'mcp-tapedeck/trace';

/**
 * Where the time of a session's tool calls went: per tool, the calls, their total and mean latency, its share of
 * all tool time (the sum of every answered call's latency; calls that overlap count in full, as a profiler's
 * "total time" does), the p95 and the failures — and a one-line insight per tool a person can read at a glance:
 * `search: 61 % of tool time, p95 2.3 s, 4 errors`.
 */
export interface ToolTime {
  name: string;
  /** The `server` of a multi-server trace, else null. */
  server: string | null;
  calls: number;
  /** Calls with an answer (the only ones with a latency). */
  answered: number;
  totalMs: number;
  meanMs: number | undefined;
  p95Ms: number | undefined;
  /** JSON-RPC errors and results with `isError`. */
  errors: number;
  /** totalMs / the sum of every tool's totalMs (0..1). */
  share: number;
}

/** What each tool adds up to, before shares are known. */
export interface ToolTally {
  name: string;
  server: string | null;
  calls: number;
  errors: number;
  /** Latencies of the answered calls, in any order. */
  latencies: number[];
}

/**
 * Tallies the client's tools/call requests by tool (and server, in a multi-server trace).
 *
 * @example const times = toolTimes(tallyTools(source.exchanges));
 */
export function tallyTools(exchanges: Iterable<Exchange>, byServer = false): ToolTally[] {
  const tallies = new Map<string, ToolTally>();
  for (const exchange of exchanges) {
    if (exchange.dir !== 'in') continue;
    const name = toolName(exchange.request);
    if (name === undefined) continue;
    const server = byServer ? (exchange.server ?? null) : null;
    const key = `${server ?? ''}\u0000${name}`;
    let tally = tallies.get(key);
    if (!tally) {
      tally = { name, server, calls: 0, errors: 0, latencies: [] };
      tallies.set(key, tally);
    }
    tally.calls++;
    if (exchange.outcome === 'error' || exchange.outcome === 'tool_error') tally.errors++;
    if (exchange.latencyMs !== undefined) tally.latencies.push(exchange.latencyMs);
  }
  return [...tallies.values()];
}

/**
 * Each tool's share of the total, largest first (ties by name).
 *
 * @example toolTimes([{ name: 'search', server: null, calls: 2, errors: 0, latencies: [100, 300] }])[0].share // → 1
 */
export function toolTimes(tallies: readonly ToolTally[]): ToolTime[] {
  const totals = tallies.map((t) => t.latencies.reduce((sum, ms) => sum + ms, 0));
  const all = totals.reduce((sum, ms) => sum + ms, 0);
  return tallies
    .map((tally, i) => {
      const sorted = [...tally.latencies].sort((a, b) => a - b);
      const totalMs = totals[i]!;
      return {
        name: tally.name,
        server: tally.server,
        calls: tally.calls,
        answered: sorted.length,
        totalMs,
        meanMs: sorted.length === 0 ? undefined : totalMs / sorted.length,
        p95Ms: sorted.length === 0 ? undefined : percentile(sorted, 0.95),
        errors: tally.errors,
        share: all === 0 ? 0 : totalMs / all,
      };
    })
    .sort((a, b) => b.totalMs - a.totalMs || a.name.localeCompare(b.name));
}

/**
 * A duration in a sentence: `840 ms`, `2.3 s`, `45 s`, `3.5 min`, `5 h 03 min`, `2 d 4 h`.
 *
 * @example briefDuration(2300) // → '2.3 s'
 */
export function briefDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 48 * 60) return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
  const hours = Math.round(ms / 3_600_000);
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/**
 * A share as people say it: `61 %`, `<1 %` for a sliver, `0 %` for nothing.
 *
 * @example percent(0.614) // → '61 %'
 */
export function percent(share: number): string {
  if (share > 0 && share < 0.005) return '<1 %';
  return `${Math.round(share * 100)} %`;
}

/**
 * The one-line insight for a tool.
 *
 * @example toolInsight(times[0]) // → 'search: 61 % of tool time, p95 2.3 s, 4 errors'
 */
export function toolInsight(time: ToolTime): string {
  const name = time.server === null ? time.name : `${time.server} · ${time.name}`;
  const parts = [`${percent(time.share)} of tool time`];
  if (time.p95Ms !== undefined) parts.push(`p95 ${briefDuration(time.p95Ms)}`);
  if (time.errors > 0) parts.push(`${time.errors} ${time.errors === 1 ? 'error' : 'errors'}`);
  if (time.answered < time.calls) parts.push(`${time.calls - time.answered} unanswered`);
  return `${name}: ${parts.join(', ')}`;
}

/**
 * The lines worth reading first: the tool that took the most time, then any other that failed or took at least a
 * fifth of the time, at most `max` lines.
 *
 * @example headlines(times) // → ['search: 61 % of tool time, p95 2.3 s, 4 errors', 'fetch: 30 % of tool time, p95 900 ms']
 */
export function headlines(times: readonly ToolTime[], max = 3): string[] {
  const picked = times.filter(
    (t, i) => (i === 0 && t.totalMs > 0) || t.errors > 0 || t.share >= 0.2 || t.answered < t.calls,
  );
  return picked.slice(0, max).map(toolInsight);
}
