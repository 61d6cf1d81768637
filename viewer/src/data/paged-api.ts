import type { PagedBarsPage, PagedFound, PagedInfo, PagedRowsPage, PagedStats } from 'mcp-tapedeck/trace';

/** The view a page is asked from: the viewer's own filter parameters (q, re, tool, method, dir, server, err). */
export type PagedQuery = Readonly<Record<string, string>>;

/**
 * The paged API of `tapedeck view` (src/view/paged/routes.ts), as the data layer needs it; source/paged-api.ts
 * implements it with fetch. The shapes it answers with are `mcp-tapedeck/trace`'s Paged* types, the ones the server
 * writes.
 */
export interface PagedApi {
  info(): Promise<PagedInfo>;
  rows(query: PagedQuery, from: number, count: number): Promise<PagedRowsPage>;
  /** One row by its key and its place in the view; undefined when the trace has no such row. */
  find(query: PagedQuery, key: string): Promise<PagedFound | undefined>;
  bars(query: PagedQuery, from: number, to: number, start: number, count: number): Promise<PagedBarsPage>;
  density(query: PagedQuery, buckets: number): Promise<number[]>;
  stats(): Promise<PagedStats>;
  /** The address of the view as a JSONL download. */
  exportUrl(query: PagedQuery): string;
}
