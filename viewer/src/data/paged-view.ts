import type { LineQuery, PagedRowsPage } from 'mcp-tapedeck/trace';
import type { PagedApi } from './paged-api.js';
import type { PagedSourceModel } from './paged-source.js';
import type { Row } from './rows.js';
import type { RowList } from './trace-view.js';

/** Rows per page asked of the server. */
export const PAGE_ROWS = 200;
/** Pages kept per view; the ones used longest ago go first. */
const KEPT_PAGES = 50;
/** While the trace is still being indexed, how often a filtered view asks again how many rows it holds. */
const RECOUNT_MS = 2000;

/**
 * One view of a paged trace (the whole trace, or the rows a filter keeps): how many rows it holds, and each row
 * by its place, fetched a page at a time as the list asks for it. Pages fetched while the server was still
 * indexing are fetched again when next shown, so a request shown before its answer was read gets its answer.
 */
export class PagedView implements RowList {
  /** The rows stay on the server. */
  readonly held = undefined;
  /** Rows in the view (grows while the trace is indexed). */
  count = 0;
  /** The count is known (the first page of a filtered view has answered). */
  known = false;
  /**
   * The count is only the rows found so far: a search's first page came before its count (the server still reads
   * the whole file), which is on its way.
   */
  counting = false;
  /** The filter's regular expression did not compile. */
  error: string | undefined;
  private readonly pages = new Map<number, { rows: Row[]; stamp: number }>();
  private readonly inflight = new Set<number>();
  /** The index's size the view was last brought up to date with. */
  private stamp = -1;
  private counted = 0;
  /** Lookups waiting for the index to grow (a row not indexed yet may be in what comes next). */
  private waiting: (() => void)[] = [];

  constructor(
    private readonly api: PagedApi,
    private readonly source: PagedSourceModel,
    readonly query: LineQuery,
    /** Whether the query keeps every row (the count is then the index's). */
    readonly whole: boolean,
    private readonly changed: () => void,
  ) {}

  /** The index grew to `rows` rows (or finished): counts and the pages shown are brought up to date. */
  grew(rows: number, done: boolean): void {
    const stamp = done ? Number.POSITIVE_INFINITY : rows;
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
    if (this.whole) {
      this.count = rows;
      this.known = true;
    } else if (done || Date.now() - this.counted > RECOUNT_MS || !this.known) {
      void this.load(0);
    }
  }

  /**
   * The first page, asked for before the view was made (with the trace's info, so the first screen waits for
   * one round trip, not two); taken instead of asking again.
   */
  prime(first: Promise<PagedRowsPage | undefined>): void {
    this.inflight.add(0);
    void first.then((page) => {
      this.inflight.delete(0);
      if (!page) return void this.load(0);
      const rows = page.rows.map((paged) => this.source.builder.row(paged));
      for (const row of rows) this.source.remember(row);
      this.pages.set(0, { rows, stamp: page.done ? Number.POSITIVE_INFINITY : page.total });
      this.changed();
    });
  }

  /** The row at `index`, or undefined while its page is fetched (asking for it). */
  at(index: number): Row | undefined {
    const number = Math.floor(index / PAGE_ROWS);
    const page = this.pages.get(number);
    if (!page || this.stale(page)) void this.load(number);
    return page?.rows[index - number * PAGE_ROWS];
  }

  /**
   * A page fetched before the index last grew that may read differently now: the tail of the trace, a request
   * still waiting for its answer, and any page of a filtered view (a request answered with an error joins an
   * errors-only view where it was sent).
   */
  private stale(page: { rows: Row[]; stamp: number }): boolean {
    if (page.stamp >= this.stamp) return false;
    if (!this.whole || page.rows.length < PAGE_ROWS) return true;
    return page.rows.some((row) => (row.exchange ?? row.parent)?.outcome === 'open');
  }

  /** The place of a fetched row, or -1. */
  indexOf(key: string): number {
    for (const [number, page] of this.pages) {
      const at = page.rows.findIndex((row) => row.key === key);
      if (at >= 0) return number * PAGE_ROWS + at;
    }
    return -1;
  }

  /** The trace is indexed to its end: a row not found now is not in it. */
  get complete(): boolean {
    return this.stamp === Number.POSITIVE_INFINITY;
  }

  /**
   * Finds a row by key on the server (a link to a row not fetched yet): its place in the view, or -1 once the
   * index is complete without it. While the trace is still being indexed, a row not found yet is asked for again
   * each time the index grows: a link to the far end of a big trace is followed when its row is reached.
   */
  async locate(key: string): Promise<number> {
    for (;;) {
      const complete = this.complete;
      const found = await this.api.find(this.query, key);
      if (found) {
        this.source.remember(this.source.builder.row(found.row));
        this.changed();
        return found.n;
      }
      if (complete) return -1;
      await new Promise<void>((wake) => this.waiting.push(wake));
    }
  }

  /** Asks for the count of a view whose first page came before it. */
  private async recount(): Promise<void> {
    try {
      const answer = await this.api.rows(this.query, 0, 0);
      if (!this.counting) return;
      this.count = answer.total;
      this.counting = false;
      this.error = answer.error ?? undefined;
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    }
    this.changed();
  }

  private async load(number: number): Promise<void> {
    if (this.inflight.has(number)) return;
    this.inflight.add(number);
    const stamp = this.stamp;
    try {
      // A filtered view's first page may come before its count: the rows show while the server counts.
      const early = !this.whole && !this.known && number === 0;
      const page = await this.api.rows(this.query, number * PAGE_ROWS, PAGE_ROWS, early);
      if (!this.whole) {
        // Asked for before this page's rows are built: the server is counting already.
        this.counting = page.counted === false;
        if (this.counting) void this.recount();
      }
      const rows = page.rows.map((paged) => this.source.builder.row(paged));
      for (const row of rows) this.source.remember(row);
      this.pages.delete(number);
      this.pages.set(number, { rows, stamp });
      if (this.pages.size > KEPT_PAGES) this.pages.delete(this.pages.keys().next().value!);
      if (!this.whole) {
        this.count = page.total;
        this.known = true;
        this.counted = Date.now();
      }
      this.error = page.error ?? undefined;
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    } finally {
      this.inflight.delete(number);
      this.changed();
    }
  }
}
