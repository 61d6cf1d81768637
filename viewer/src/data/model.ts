import type { FollowView } from './follow.js';
import type { Row } from './rows.js';
import { type SourceInfo, SourceModel } from './source-model.js';

/**
 * Everything the viewer has open: one or more traces, their rows merged by time into one timeline. Views read it
 * and subscribe to changes (a file still loading, a live trace growing); `version` tells them something changed.
 */
export class TraceModel {
  readonly sources: SourceModel[] = [];
  version = 0;
  /** Set while files are still being read: progress 0..1 and a line to show. */
  loading: { progress: number; text: string } | undefined;
  /** Problems opening files (one line each), shown above the views. */
  readonly failures: string[] = [];
  private readonly listeners = new Set<() => void>();
  private merged: { version: number; rows: Row[] } | undefined;
  /**
   * The next trace's index. Indexes are never reused: a row's key (`<source>.<seq>`), a link's `sel`, a trace's
   * colour all name a trace by its index, so closing one leaves the others' keys and colours as they were.
   */
  private nextIndex = 0;

  addSource(info: SourceInfo): SourceModel {
    const source = new SourceModel(this.nextIndex++, info);
    this.sources.push(source);
    this.changed();
    return source;
  }

  /**
   * The open trace with this index (indexes are not positions in `sources` once a trace was closed).
   *
   * @example model.source(row.src)?.info.name // → 'calls.jsonl'
   */
  source(index: number): SourceModel | undefined {
    return this.sources.find((s) => s.index === index);
  }

  /**
   * Why the trace with this index cannot be closed, or undefined when it can: the last open trace stays (a viewer
   * with nothing open is the home screen, reached by opening the page again), and so does a trace its source
   * keeps (`SourceInfo.keep`: one followed live, or the one a collector link names).
   *
   * @example model.closeBlock(0) // → 'the last open trace stays open' when it is the only one
   */
  closeBlock(index: number): string | undefined {
    const source = this.source(index);
    if (!source) return 'no such trace is open';
    if (this.sources.length === 1) return 'the last open trace stays open';
    return source.info.keep;
  }

  /**
   * Closes a trace: its rows leave the merged timeline, and everything read from the open traces (tools, methods,
   * servers, counts, statistics, the timeline's zero) is read again from the others when the views look (they
   * recompute on `version`). A trace still being read stops being read. Returns false, changing nothing, when
   * `closeBlock` names a reason it stays.
   *
   * @example model.removeSource(1) // → true; model.source(1) // → undefined
   */
  removeSource(index: number): boolean {
    if (this.closeBlock(index) !== undefined) return false;
    const at = this.sources.findIndex((s) => s.index === index);
    const [source] = this.sources.splice(at, 1);
    source!.closed = true;
    this.merged = undefined;
    this.changed();
    return true;
  }

  /** Tells every view to look again. */
  changed(): void {
    this.version++;
    for (const listener of this.listeners) listener();
  }

  /**
   * Something could not be opened or read: one line in `failures` (shown in the status bar, never a blank page),
   * and loading stops.
   *
   * @example model.fail('Could not read the traces', err) // → failures: ['Could not read the traces: …']
   */
  fail(what: string, err: unknown): void {
    this.loading = undefined;
    this.failures.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
    this.changed();
  }

  /** The state of the trace being followed as it is recorded, if one is. */
  following(): FollowView | undefined {
    return this.sources.find((s) => s.follow !== undefined)?.follow;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every row of every source, in time order (one source: its own order). */
  rows(): Row[] {
    if (this.sources.length === 1) return this.sources[0]!.rows;
    if (this.merged?.version !== this.version)
      this.merged = { version: this.version, rows: mergeByTime(this.sources.map((s) => s.rows)) };
    return this.merged.rows;
  }

  /** The row a deep link names (`<source>.<seq>[.<item>]`). */
  row(key: string): Row | undefined {
    const src = Number.parseInt(key, 10);
    return this.source(src)?.row(key);
  }

  /** The timeline's zero: the earliest start of any source. */
  start(): number | undefined {
    let start: number | undefined;
    for (const s of this.sources)
      if (s.start !== undefined && (start === undefined || s.start < start)) start = s.start;
    return start;
  }

  maxLatency(): number {
    return Math.max(0, ...this.sources.map((s) => s.maxLatency));
  }

  /** Distinct `server` names across the rows' sources (multi-server traces). */
  servers(): string[] {
    const names = new Set<string>();
    for (const s of this.sources) {
      if (typeof s.info.meta.server === 'string') names.add(s.info.meta.server);
      for (const server of s.servers) names.add(server);
    }
    return [...names].sort();
  }
}

/**
 * Merges per-source row lists (each already in time order) into one, by timestamp; rows without a time keep the
 * time of the row before them in their own source, ties go to the lower source index.
 */
export function mergeByTime(lists: readonly Row[][]): Row[] {
  const total = lists.reduce((n, list) => n + list.length, 0);
  const out: Row[] = new Array(total);
  const at = lists.map(() => 0);
  const last = lists.map(() => Number.NEGATIVE_INFINITY);
  for (let n = 0; n < total; n++) {
    let best = -1;
    let bestTime = Number.POSITIVE_INFINITY;
    for (let i = 0; i < lists.length; i++) {
      const row = lists[i]![at[i]!];
      if (!row) continue;
      const time = row.time ?? last[i]!;
      if (best === -1 || time < bestTime) {
        best = i;
        bestTime = time;
      }
    }
    const row = lists[best]![at[best]!]!;
    at[best] = at[best]! + 1;
    last[best] = bestTime;
    out[n] = row;
  }
  return out;
}
