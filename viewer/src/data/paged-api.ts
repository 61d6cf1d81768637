import type {
  LineQuery,
  PagedBarsPage,
  PagedErrors,
  PagedFound,
  PagedInfo,
  PagedRowsPage,
  PagedStats,
} from 'mcp-tapedeck/trace';

/**
 * The paged API of `tapedeck view` (src/view/paged/routes.ts), as the data layer needs it; source/paged-api.ts
 * implements it with fetch. The shapes it answers with are `mcp-tapedeck/trace`'s Paged* types, the ones the server
 * writes.
 */
export interface PagedApi {
  info(): Promise<PagedInfo>;
  /**
   * A page of the view's rows and how many it holds. With `early`, a page among the first rows may come before
   * the view is counted (`counted` false, `total` only the rows found so far); a page of 0 rows waits for the count.
   */
  rows(query: LineQuery, from: number, count: number, early?: boolean): Promise<PagedRowsPage>;
  /** One row by its key and its place in the view; undefined when the trace has no such row. */
  find(query: LineQuery, key: string): Promise<PagedFound | undefined>;
  bars(query: LineQuery, from: number, to: number, start: number, count: number): Promise<PagedBarsPage>;
  density(query: LineQuery, buckets: number): Promise<number[]>;
  /**
   * The view's failures per failing call and where the row `key` stands among them; with a step of 1 or -1, the
   * first row of the next or previous failure.
   */
  errors(query: LineQuery, key: string | undefined, step: -1 | 0 | 1): Promise<PagedErrors>;
  stats(): Promise<PagedStats>;
  /** The address of the view as a JSONL download. */
  exportUrl(query: LineQuery): string;
}
