import {
  type Exchange,
  type PagedInfo,
  type PagedStats,
  StatsCollector,
  type TraceFormat,
  type TraceStats,
} from 'mcp-tapedeck/trace';
import type { ToolTime } from './insights.js';
import { PagedRows } from './paged-rows.js';
import type { Row } from './rows.js';
import { SourceModel } from './source-model.js';

/** Rows kept for lookups by key (the selection, links between rows); the oldest go first. */
const KEPT_ROWS = 20_000;

/**
 * A paged trace as the views see a trace: a SourceModel whose rows stay on the server. Rows of pages fetched so
 * far are found by key, statistics and tool time come from the server's index, and the latency charts draw the
 * samples it picked. `rows` stays empty: views of a paged trace ask the page cache (paged-view.ts) instead.
 */
export class PagedSourceModel extends SourceModel {
  readonly builder = new PagedRows(0);
  private readonly byKey = new Map<string, Row>();
  private serverStats: PagedStats | undefined;
  private empty: TraceStats | undefined;

  constructor(public pagedInfo: PagedInfo) {
    super(0, {
      name: pagedInfo.name,
      format: pagedInfo.format as TraceFormat,
      meta: pagedInfo.meta,
      files: [],
    });
    this.update(pagedInfo);
  }

  /** The server's latest word on the index. */
  update(info: PagedInfo): void {
    this.pagedInfo = info;
    if (info.start !== null) this.start = info.start;
    this.maxLatency = info.maxLatency;
    this.ended = info.done;
    for (const tool of info.tools) this.tools.add(tool);
    for (const method of info.methods) this.methods.add(method);
    for (const server of info.servers) this.servers.add(server);
    this.calls = info.calls;
    this.diagnostics.splice(0, this.diagnostics.length, ...info.diagnostics);
  }

  /** Rows of a fetched page, remembered for lookups by key. */
  remember(row: Row): void {
    this.byKey.delete(row.key);
    this.byKey.set(row.key, row);
    if (this.byKey.size > KEPT_ROWS) this.byKey.delete(this.byKey.keys().next().value!);
  }

  override row(key: string): Row | undefined {
    return this.byKey.get(key);
  }

  override requestRow(exchange: Exchange): Row | undefined {
    const key = this.builder.keys.get(exchange);
    if (key === undefined) return undefined;
    // A request whose own row is not fetched yet is still named by its key (the views link to it by that).
    return this.byKey.get(key) ?? ({ key, src: 0, kind: 'request', exchange } as Row);
  }

  override responseRow(exchange: Exchange): Row | undefined {
    return [...this.byKey.values()].find((row) => row.kind === 'response' && row.exchange === exchange);
  }

  /** The server's figures, once fetched (see the Tools view). */
  setStats(stats: PagedStats): void {
    this.serverStats = stats;
    this.exchanges.splice(0, this.exchanges.length, ...sampleExchanges(stats));
  }

  get hasStats(): boolean {
    return this.serverStats !== undefined;
  }

  override statistics(): TraceStats {
    if (this.serverStats) return this.serverStats.stats;
    this.empty ??= new StatsCollector().result();
    return this.empty;
  }

  override toolTimes(): ToolTime[] {
    return (this.serverStats?.toolTimes ?? []).map((t) => ({
      ...t,
      meanMs: t.meanMs ?? undefined,
      p95Ms: t.p95Ms ?? undefined,
    }));
  }
}

/**
 * Stand-ins for the requests the latency charts draw: one per sampled latency. The Tools view groups exchanges
 * by method and by tool; a method's sample stands in for its method only (no tool name), a tool's for its tool
 * only (an exchange method no table lists), so no latency is drawn twice.
 */
function sampleExchanges(stats: PagedStats): Exchange[] {
  const out: Exchange[] = [];
  for (const sample of stats.samples) {
    const errors = new Set(sample.errors);
    for (const latency of sample.values) {
      const request =
        sample.tool === null
          ? { kind: 'request' as const, id: 0, method: sample.method, params: undefined }
          : { kind: 'request' as const, id: 0, method: 'tools/call', params: { name: sample.tool } };
      out.push({
        ordinal: -1,
        server: sample.server ?? undefined,
        conn: undefined,
        dir: sample.dir,
        id: 0,
        method: sample.tool === null ? sample.method : '',
        request,
        requestRef: {
          line: { t: '', seq: 0, dir: sample.dir, raw: null },
          index: 0,
          lineNo: undefined,
          item: undefined,
          time: undefined,
        },
        response: undefined,
        responseRef: undefined,
        latencyMs: latency,
        outcome: errors.has(latency) ? 'error' : 'ok',
        cancelled: false,
        parent: undefined,
        via: undefined,
        guessed: false,
        depth: 0,
        children: [],
      });
    }
  }
  return out;
}
