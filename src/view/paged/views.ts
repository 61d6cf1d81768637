import type { PagedRowsPage } from '../../trace/paged.js';
import { isEmptyQuery, type LineQuery, queryKey } from '../../trace/query.js';
import { firstRows } from './first-page.js';
import { rowsPage } from './pages.js';
import { type FilterResult, runFilter } from './query.js';
import type { TraceIndex } from './trace-index.js';

/** Filtered views kept. */
const CACHED_VIEWS = 8;

/**
 * The filtered views of a paged trace the server has found, one pass per query shared by every question asked of
 * it (a page, the count, the failures, the bars), kept until the index grows; and a search's first page found
 * before its view is (first-page.ts).
 *
 * @example const views = new FilteredViews(index); const { rows } = await views.view({ q: 'a' });
 */
export class FilteredViews {
  /** Settles once the first page being found (if any) is: whole views wait for it. */
  private probing: Promise<void> = Promise.resolve();
  private readonly views = new Map<
    string,
    { version: number; result: Promise<FilterResult>; settled: FilterResult | undefined }
  >();

  constructor(private readonly index: TraceIndex) {}

  private cached(filter: LineQuery) {
    const entry = this.views.get(queryKey(filter));
    return entry && entry.version === this.index.version ? entry : undefined;
  }

  /** The view of a filter: found once per query (and again once the index has grown). */
  view(filter: LineQuery): Promise<FilterResult> {
    const known = this.cached(filter);
    if (known) return known.result;
    const key = queryKey(filter);
    // A first page being found goes first: it is a few reads, the whole view a pass over the file. Asked for at
    // the same moment (the viewer asks for a search's failures with its first page), it has a moment to start.
    const result = new Promise((resume) => setTimeout(resume, 1))
      .then(() => this.probing)
      .then(() => runFilter(this.index, filter));
    const entry = { version: this.index.version, result, settled: undefined as FilterResult | undefined };
    void result.then(
      (done) => {
        entry.settled = done;
      },
      () => {},
    );
    this.views.delete(key);
    this.views.set(key, entry);
    if (this.views.size > CACHED_VIEWS) this.views.delete(this.views.keys().next().value!);
    return result;
  }

  /**
   * A page of a filtered view not counted yet, when its rows are among the first ones (see first-page.ts):
   * answered while the whole view is still being found, which is set going once the page is, for the count that
   * follows. Undefined when the view is counted already or its rows lie further on.
   */
  earlyPage(filter: LineQuery, from: number, n: number): Promise<PagedRowsPage | undefined> {
    if (isEmptyQuery(filter) || this.cached(filter)?.settled || n === 0) return Promise.resolve(undefined);
    const page = (async () => {
      const found = await firstRows(this.index, filter, from + n);
      // Counted meanwhile: the whole view answers as it always does.
      if (!found || this.cached(filter)?.settled) return undefined;
      return {
        total: found.length,
        counted: false,
        done: this.index.done,
        error: null,
        rows: await rowsPage(this.index, [...found.subarray(from)], from),
      } satisfies PagedRowsPage;
    })();
    this.probing = page.then(
      () => undefined,
      () => undefined,
    );
    void this.probing.then(() => this.view(filter).catch(() => {}));
    return page;
  }
}
