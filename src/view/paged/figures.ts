import type { Exchange } from '../../trace/exchange.js';
import { toolName } from '../../trace/jsonrpc.js';
import type { PagedSample, PagedToolTime } from '../../trace/paged.js';
import { percentile } from '../../trace/stats.js';

/** Latencies per chart line at most (evenly picked from the sorted values, the slowest always kept). */
const MAX_SAMPLE = 400;

/** Per tool (and server): calls, failures and latencies, for the tool-time figures. */
interface ToolTally {
  name: string;
  server: string | null;
  calls: number;
  errors: number;
  latencies: number[];
}

/** Latencies of one method (or one tool) and those of its failures. */
interface LatencyLine {
  dir: 'in' | 'out';
  method: string;
  tool: string | null;
  server: string | null;
  values: number[];
  errors: number[];
}

/**
 * The Tools view's figures for a paged trace, gathered as the index reads it: where the tool time went (the
 * viewer's ToolTime shape, computed as the viewer computes it from a whole trace) and a few hundred latencies per
 * tool and method for its charts.
 *
 * @example const figures = new Figures(); figures.add(exchange); figures.toolTimes(false);
 */
export class Figures {
  private readonly tallies = new Map<string, ToolTally>();
  private readonly lines = new Map<string, LatencyLine>();
  /** Client tools/call requests that finished. */
  calls = 0;

  /** A finished request (answered, or never answered by the end of the trace). */
  add(x: Exchange): void {
    const server = x.server ?? null;
    const failed = x.outcome === 'error' || x.outcome === 'tool_error';
    const name = x.dir === 'in' ? toolName(x.request) : undefined;
    const keys: [string, string | null][] = [[`${server}\u0000${x.dir}\u0000${x.method}`, null]];
    if (name !== undefined) keys.push([`${server}\u0000tool\u0000${name}`, name]);
    for (const [key, tool] of keys) {
      let line = this.lines.get(key);
      if (!line) {
        line = { dir: x.dir, method: x.method, tool, server, values: [], errors: [] };
        this.lines.set(key, line);
      }
      if (x.latencyMs !== undefined) {
        line.values.push(x.latencyMs);
        if (failed) line.errors.push(x.latencyMs);
      }
    }
    if (name === undefined) return;
    const key = `${server}\u0000${name}`;
    let tally = this.tallies.get(key);
    if (!tally) {
      tally = { name, server, calls: 0, errors: 0, latencies: [] };
      this.tallies.set(key, tally);
    }
    this.calls++;
    tally.calls++;
    if (failed) tally.errors++;
    if (x.latencyMs !== undefined) tally.latencies.push(x.latencyMs);
  }

  /** Where the tool time went, largest first; tools of different servers apart when `byServer`. */
  toolTimes(byServer: boolean): PagedToolTime[] {
    const tallies = [...this.tallies.values()];
    const totals = tallies.map((t) => t.latencies.reduce((sum, ms) => sum + ms, 0));
    const all = totals.reduce((sum, ms) => sum + ms, 0);
    return tallies
      .map((tally, i) => {
        const sorted = Float64Array.from(tally.latencies).sort();
        const totalMs = totals[i]!;
        return {
          name: tally.name,
          server: byServer ? tally.server : null,
          calls: tally.calls,
          answered: sorted.length,
          totalMs,
          meanMs: sorted.length === 0 ? null : totalMs / sorted.length,
          p95Ms: sorted.length === 0 ? null : percentile([...sorted], 0.95),
          errors: tally.errors,
          share: all === 0 ? 0 : totalMs / all,
        };
      })
      .sort((a, b) => b.totalMs - a.totalMs || a.name.localeCompare(b.name));
  }

  /** A few hundred latencies per tool and method: evenly picked from the sorted values, the slowest kept. */
  samples(): PagedSample[] {
    const pick = (values: number[]) => {
      const sorted = Float64Array.from(values).sort();
      if (sorted.length <= MAX_SAMPLE) return [...sorted];
      const step = (sorted.length - 1) / (MAX_SAMPLE - 1);
      return Array.from({ length: MAX_SAMPLE }, (_, i) => sorted[Math.round(i * step)]!);
    };
    return [...this.lines.values()].map((line) => ({
      dir: line.dir,
      method: line.method,
      tool: line.tool,
      server: line.server,
      count: line.values.length,
      values: pick(line.values),
      errors: pick(line.errors),
    }));
  }
}
