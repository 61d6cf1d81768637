import type { LineQuery, PagedBar } from 'mcp-tapedeck/trace';
import type { PagedApi } from './paged-api.js';
import type { BarList, BarSource, TimeRange, WaterfallBar } from './waterfall.js';

/** Bars per page asked of the server. */
const PAGE_BARS = 200;
const KEPT_PAGES = 30;

/** The waterfall bar of a bar the server sent. */
export function barOf(paged: PagedBar): WaterfallBar {
  const p = paged.progress;
  return {
    key: paged.key,
    src: 0,
    label: paged.label,
    dir: paged.dir,
    depth: paged.depth,
    start: paged.start,
    end: paged.end ?? undefined,
    outcome: paged.outcome,
    cancelled: paged.cancelled,
    latency: paged.latency ?? undefined,
    guess: paged.guess,
    marks: paged.marks.map(([time, kind, guess]) => ({ time, kind, guess })),
    progress: p
      ? {
          progress: p.progress,
          total: p.total ?? undefined,
          fraction:
            p.total !== null && p.total > 0 ? Math.max(0, Math.min(1, p.progress / p.total)) : undefined,
          message: p.message ?? undefined,
          count: p.count,
          times: [],
        }
      : undefined,
  };
}

/**
 * The waterfall of a paged trace: the bars of a range fetched a page at a time from the server (which filters
 * and places them), the overview's counts computed there too. Kept per range until the index grows.
 */
export class PagedBars implements BarSource {
  private lists = new Map<string, PagedBarList>();
  private counts: { buckets: number; counts: number[] } | undefined;
  private loadingCounts = false;

  constructor(
    private readonly api: PagedApi,
    private readonly query: LineQuery,
    readonly start: number,
    readonly end: number,
    private readonly changed: () => void,
  ) {}

  readonly untimed = 0;

  inRange(range: TimeRange): BarList {
    const key = `${range.from}-${range.to}`;
    let list = this.lists.get(key);
    if (!list) {
      list = new PagedBarList(this.api, this.query, range, this.changed);
      this.lists.set(key, list);
      if (this.lists.size > 6) this.lists.delete(this.lists.keys().next().value!);
    }
    return list;
  }

  density(buckets: number): number[] {
    if ((!this.counts || this.counts.buckets !== buckets) && !this.loadingCounts) {
      this.loadingCounts = true;
      void this.api
        .density(this.query, buckets)
        .then((counts) => {
          this.counts = { buckets, counts };
        })
        .catch(() => {})
        .finally(() => {
          this.loadingCounts = false;
          this.changed();
        });
    }
    return this.counts?.counts ?? [];
  }
}

class PagedBarList implements BarList {
  count = 0;
  loading = true;
  private readonly pages = new Map<number, WaterfallBar[]>();
  private readonly inflight = new Set<number>();

  constructor(
    private readonly api: PagedApi,
    private readonly query: LineQuery,
    private readonly range: TimeRange,
    private readonly changed: () => void,
  ) {
    void this.load(0);
  }

  at(index: number): WaterfallBar | undefined {
    const number = Math.floor(index / PAGE_BARS);
    const page = this.pages.get(number);
    if (!page) void this.load(number);
    return page?.[index - number * PAGE_BARS];
  }

  indexOf(key: string): number {
    for (const [number, page] of this.pages) {
      const at = page.findIndex((bar) => bar.key === key);
      if (at >= 0) return number * PAGE_BARS + at;
    }
    return -1;
  }

  private async load(number: number): Promise<void> {
    if (this.inflight.has(number)) return;
    this.inflight.add(number);
    try {
      const page = await this.api.bars(
        this.query,
        this.range.from,
        this.range.to,
        number * PAGE_BARS,
        PAGE_BARS,
      );
      this.count = page.total;
      this.pages.set(number, page.bars.map(barOf));
      if (this.pages.size > KEPT_PAGES) this.pages.delete(this.pages.keys().next().value!);
    } catch {
      // The list stays as it was; the next look asks again.
    } finally {
      this.loading = false;
      this.inflight.delete(number);
      this.changed();
    }
  }
}
