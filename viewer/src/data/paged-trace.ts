import {
  isEmptyQuery,
  type LineQuery,
  type PagedInfo,
  type PagedRowsPage,
  queryKey,
} from 'mcp-tapedeck/trace';
import type { ViewName } from '../route.js';
import type { Facets } from './facets.js';
import { TraceModel } from './model.js';
import type { PagedApi } from './paged-api.js';
import { PagedBars } from './paged-bars.js';
import { PagedSourceModel } from './paged-source.js';
import { PAGE_ROWS, PagedView } from './paged-view.js';
import { heldRows, type RowList, type TraceView } from './trace-view.js';

/** How often the server is asked how far its index got, while it is indexing. */
const POLL_MS = 500;
/** While indexing, the waterfall's bars are fetched afresh at most this often. */
const BARS_MS = 2000;

/**
 * A trace `tapedeck view` pages: the model the views read (one PagedSourceModel), the views of it asked for so
 * far (the whole trace, filtered ones), the waterfall's bars, and the server's index followed until it is done.
 *
 * @example const trace = new PagedTrace(api); await trace.start(); trace.rows({ tool: 'echo' }).at(0);
 */
export class PagedTrace implements TraceView {
  readonly model = new TraceModel();
  readonly whole = false;
  /** Calls, Diff and Raw need every row in the browser. */
  readonly views: readonly ViewName[] = ['timeline', 'waterfall', 'tools'];
  source: PagedSourceModel | undefined;
  private readonly lists = new Map<string, PagedView>();
  private shownBars: { key: string; made: number; rows: number; bars: PagedBars } | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private statsAsked = false;
  /** The whole trace's first page, asked for with the info. */
  private first: Promise<PagedRowsPage | undefined> | undefined;

  constructor(private readonly api: PagedApi) {}

  /** Reads the trace's info, then follows the index until it is done. */
  async start(): Promise<void> {
    this.model.loading = { progress: 0, text: 'Opening the trace…' };
    this.model.changed();
    // The first page is asked for with the info, not after it: the first screen needs both.
    const first = this.api.rows({}, 0, PAGE_ROWS).catch(() => undefined);
    try {
      const info = await this.api.info();
      this.first = first;
      this.apply(info);
    } catch (err) {
      this.model.fail('Could not open the trace', err);
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private apply(info: PagedInfo): void {
    if (!this.source) {
      this.source = new PagedSourceModel(info);
      this.model.sources.push(this.source);
    } else this.source.update(info);
    this.model.loading = info.done
      ? undefined
      : {
          progress: info.progress,
          text: `Indexing ${info.name}: ${info.rows.toLocaleString('en')} rows so far…`,
        };
    if (info.failure)
      this.model.failures.splice(0, this.model.failures.length, `Could not read the trace: ${info.failure}`);
    for (const view of this.lists.values()) view.grew(info.rows, info.done);
    if (info.done && this.statsAsked) void this.loadStats();
    this.model.changed();
    if (!info.done && !this.stopped)
      this.timer = setTimeout(() => {
        this.api.info().then(
          (next) => this.apply(next),
          () => this.apply(info),
        );
      }, POLL_MS);
  }

  /** The view of a query, made on first use (an empty list until the trace's info has come). */
  rows(query: LineQuery): RowList {
    if (!this.source) return heldRows([], undefined);
    const key = queryKey(query);
    let view = this.lists.get(key);
    if (!view) {
      const whole = isEmptyQuery(query);
      view = new PagedView(this.api, this.source!, query, whole, () => this.model.changed());
      if (whole && this.first) view.prime(this.first);
      this.first = undefined;
      this.lists.set(key, view);
      if (this.lists.size > 6) this.lists.delete(this.lists.keys().next().value!);
      const info = this.source!.pagedInfo;
      view.grew(info.rows, info.done);
    }
    return view;
  }

  /** The waterfall's bars for a query: fetched afresh as the index grows (at most every two seconds). */
  bars(query: LineQuery): PagedBars {
    const key = queryKey(query);
    const info = this.source!.pagedInfo;
    const fresh =
      this.shownBars?.key === key &&
      (this.shownBars.rows === info.rows || (!info.done && Date.now() - this.shownBars.made < BARS_MS));
    if (!fresh) {
      const start = info.start ?? 0;
      const end = Math.max(info.end ?? start, start + 1);
      this.shownBars = {
        key,
        made: Date.now(),
        rows: info.rows,
        bars: new PagedBars(this.api, query, start, end, () => this.model.changed()),
      };
    }
    return this.shownBars!.bars;
  }

  /** Asks for the Tools view's figures (again once indexing is done). */
  async loadStats(): Promise<void> {
    this.statsAsked = true;
    try {
      this.source?.setStats(await this.api.stats());
    } catch (err) {
      this.model.fail('Could not read the figures', err);
    }
    this.model.changed();
  }

  exportHref(query: LineQuery): string {
    return this.api.exportUrl(query);
  }

  facets(): Facets {
    const info = this.source?.pagedInfo;
    return {
      tools: info?.tools ?? [],
      methods: info?.methods ?? [],
      servers: info?.servers ?? [],
      calls: info?.calls ?? 0,
      transport: false,
    };
  }

  total(): number {
    return this.source?.pagedInfo.rows ?? 0;
  }

  /** The Tools view's figures are the server's, asked for when the view is first shown. */
  prepare(view: ViewName | 'home'): void {
    if (view === 'tools' && this.source && !this.source.hasStats && !this.statsAsked) void this.loadStats();
  }
}
