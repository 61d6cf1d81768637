import {
  type EndLine,
  type Exchange,
  type MetaLine,
  Pairer,
  type RecordLine,
  type TraceDiagnostic,
  type TraceFormat,
  type TraceStats,
  toolName,
} from 'mcp-tapedeck/trace';
import type { FollowState } from './follow.js';
import { type ToolTime, tallyTools, toolTimes } from './insights.js';
import type { RawText } from './raw-text.js';
import { type LineSource, type Row, rowOf } from './rows.js';
import { statsOf } from './stats.js';

/** What the viewer knows about one open trace besides its lines. */
export interface SourceInfo {
  /** A short name to show (the file name, or the collector's label). */
  name: string;
  format: TraceFormat | 'live';
  meta: MetaLine;
  /** The trace's files with their text, for the Raw view, oldest segment first. */
  files: RawText[];
  /**
   * Set when the trace cannot be closed while others are open, saying why (shown on its close button): a trace
   * followed live or named by the page's link is what the page is about; files opened or added beside it are not.
   */
  keep?: string;
}

/**
 * One trace as the viewer holds it: rows in trace order, exchanges by ordinal, statistics. Lines are appended
 * (a whole file in batches, or a live trace as frames arrive); pairing is incremental, so an answer that arrives
 * later completes the request row already shown.
 */
export class SourceModel {
  readonly rows: Row[] = [];
  /** Every request, by ordinal (answered or not). */
  readonly exchanges: Exchange[] = [];
  readonly diagnostics: TraceDiagnostic[] = [];
  /** Largest latency seen, for scaling latency bars. */
  maxLatency = 0;
  /** Earliest timestamp (meta startedAt, else the first line), the timeline's zero. */
  start: number | undefined;
  ended = false;
  /** Set while the trace is followed as it is recorded (a live collector trace). */
  follow: FollowState | undefined;
  /** Tool names and methods seen, and how many tools/call requests (for the filter bar, kept as lines come). */
  readonly tools = new Set<string>();
  readonly methods = new Set<string>();
  /** `server` values of multi-server traces. */
  readonly servers = new Set<string>();
  calls = 0;
  /** Closed by the user (TraceModel.removeSource): a reader still filling it stops. */
  closed = false;
  private readonly pairer = new Pairer();
  private readonly metas: MetaLine[] = [];
  private readonly requestRows = new Map<Exchange, Row>();
  private readonly responseRows = new Map<Exchange, Row>();
  private readonly keyIndex = new Map<string, Row>();
  private cachedStats: { at: number; stats: TraceStats } | undefined;
  private finished = false;

  constructor(
    readonly index: number,
    readonly info: SourceInfo,
  ) {
    this.pushMeta(info.meta);
  }

  /** A meta line: the trace's first, or a later segment's (pairing reads the transport from it). */
  pushMeta(meta: MetaLine): void {
    const started = Date.parse(meta.startedAt);
    if (this.start === undefined && !Number.isNaN(started)) this.start = started;
    this.metas.push(meta);
    this.feed(meta, { file: '', lineNo: 0 });
  }

  /** Appends trace lines in order. */
  push(line: RecordLine | EndLine, where: LineSource): void {
    if (line.type === 'end') this.ended = true;
    this.feed(line, where);
  }

  /** No more lines will come: open requests become unanswered. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.pairer.finish();
    this.cachedStats = undefined;
  }

  private feed(line: MetaLine | RecordLine | EndLine, where: LineSource): void {
    this.cachedStats = undefined;
    for (const ev of this.pairer.push(line, where.lineNo)) {
      if (ev.kind === 'request') {
        this.exchanges.push(ev.exchange);
        this.methods.add(ev.exchange.method);
        if (ev.exchange.server !== undefined) this.servers.add(ev.exchange.server);
        const tool = ev.exchange.dir === 'in' ? toolName(ev.exchange.request) : undefined;
        if (tool !== undefined) {
          this.tools.add(tool);
          this.calls++;
        }
      } else if (ev.kind === 'notification') this.methods.add(ev.notification.method);
      const row = rowOf(this.index, ev, where);
      if (!row) continue;
      if (this.start === undefined && row.time !== undefined) this.start = row.time;
      if (row.kind === 'request') this.requestRows.set(row.exchange!, row);
      else if (row.kind === 'response') {
        this.responseRows.set(row.exchange!, row);
        const latency = row.exchange!.latencyMs;
        if (latency !== undefined && latency > this.maxLatency) this.maxLatency = latency;
      }
      this.keyIndex.set(row.key, row);
      this.rows.push(row);
    }
  }

  requestRow(exchange: Exchange): Row | undefined {
    return this.requestRows.get(exchange);
  }

  responseRow(exchange: Exchange): Row | undefined {
    return this.responseRows.get(exchange);
  }

  row(key: string): Row | undefined {
    return this.keyIndex.get(key);
  }

  /** Where the tool time went, per tool (see insights.ts). */
  toolTimes(): ToolTime[] {
    return toolTimes(tallyTools(this.exchanges, this.servers.size > 1));
  }

  /** `tapedeck stats` figures for this trace (recomputed only after new lines). */
  statistics(): TraceStats {
    if (!this.cachedStats || this.cachedStats.at !== this.rows.length) {
      const stats = statsOf(this.metas, this.rows, this.exchanges, this.finished);
      this.cachedStats = { at: this.rows.length, stats };
    }
    return this.cachedStats.stats;
  }
}
