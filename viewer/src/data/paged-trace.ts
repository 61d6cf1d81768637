import type { PagedInfo, PagedRowsPage } from 'mcp-tapedeck/trace';
import { TraceModel } from './model.js';
import type { PagedApi, PagedQuery } from './paged-api.js';
import { PagedBars } from './paged-bars.js';
import { PagedSourceModel } from './paged-source.js';
import { PAGE_ROWS, PagedView } from './paged-view.js';

/** How often the server is asked how far its index got, while it is indexing. */
const POLL_MS = 500;
/** While indexing, the waterfall's bars are fetched afresh at most this often. */
const BARS_MS = 2000;
/** The filter parameters the server understands (the rest of a link's parameters are the viewer's own). */
const FILTER_KEYS = ['q', 're', 'tool', 'method', 'dir', 'server', 'err'] as const;

/**
 * A trace `tapedeck view` pages: the model the views read (one PagedSourceModel), the views of it asked for so
 * far (the whole trace, filtered ones), the waterfall's bars, and the server's index followed until it is done.
 *
 * @example const trace = new PagedTrace(api); await trace.start(); trace.view({ tool: 'echo' }).at(0);
 */
export class PagedTrace {
  readonly model = new TraceModel();
  source: PagedSourceModel | undefined;
  private readonly views = new Map<string, PagedView>();
  private bars: { key: string; made: number; rows: number; bars: PagedBars } | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private statsAsked = false;
  /** The whole trace's first page, asked for with the info. */
  private first: Promise<PagedRowsPage | undefined> | undefined;

  constructor(private readonly api: PagedApi) {}

  /** The filter part of a link's parameters, in a fixed order (a view's key). */
  static query(params: Readonly<Record<string, string>>): PagedQuery {
    const query: Record<string, string> = {};
    for (const key of FILTER_KEYS) if (params[key]) query[key] = params[key]!;
    return query;
  }

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
    for (const view of this.views.values()) view.grew(info.rows, info.done);
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

  /** The view a link's parameters name (its filter), made on first use. */
  view(params: Readonly<Record<string, string>>): PagedView {
    const query = PagedTrace.query(params);
    const key = JSON.stringify(query);
    let view = this.views.get(key);
    if (!view) {
      const whole = Object.keys(query).length === 0;
      view = new PagedView(this.api, this.source!, query, whole, () => this.model.changed());
      if (whole && this.first) view.prime(this.first);
      this.first = undefined;
      this.views.set(key, view);
      if (this.views.size > 6) this.views.delete(this.views.keys().next().value!);
      const info = this.source!.pagedInfo;
      view.grew(info.rows, info.done);
    }
    return view;
  }

  /** The waterfall's bars for a filter: fetched afresh as the index grows (at most every two seconds). */
  waterfall(params: Readonly<Record<string, string>>): PagedBars {
    const query = PagedTrace.query(params);
    const key = JSON.stringify(query);
    const info = this.source!.pagedInfo;
    const fresh =
      this.bars?.key === key &&
      (this.bars.rows === info.rows || (!info.done && Date.now() - this.bars.made < BARS_MS));
    if (!fresh) {
      const start = info.start ?? 0;
      const end = Math.max(info.end ?? start, start + 1);
      this.bars = {
        key,
        made: Date.now(),
        rows: info.rows,
        bars: new PagedBars(this.api, query, start, end, () => this.model.changed()),
      };
    }
    return this.bars!.bars;
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

  exportUrl(params: Readonly<Record<string, string>>): string {
    return this.api.exportUrl(PagedTrace.query(params));
  }
}
