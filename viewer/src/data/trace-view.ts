import type { LineQuery } from 'mcp-tapedeck/trace';
import type { ViewName } from '../route.js';
import type { Facets } from './facets.js';
import type { TraceModel } from './model.js';
import type { Row } from './rows.js';
import type { BarSource } from './waterfall.js';

/**
 * The rows a query keeps, by place: held in the browser (a trace read whole), or fetched a page at a time from the
 * server that holds them (a paged trace), a row still on its way being undefined.
 */
export interface RowList {
  readonly count: number;
  /** The count is known (a search the server runs has answered). */
  readonly known: boolean;
  /** The count is only the rows found so far: the server is still counting the rest. */
  readonly counting?: boolean;
  /** The query's regular expression does not compile. */
  readonly error: string | undefined;
  at(index: number): Row | undefined;
  /** The place of a row at hand, or -1. */
  indexOf(key: string): number;
  /** The place of a row, asking the server for one not fetched yet; -1 when the list has no such row. */
  locate(key: string): Promise<number>;
  /** Every row of the list, when the browser holds them (the Calls view, exports and error steps read them). */
  readonly held: readonly Row[] | undefined;
}

/**
 * One trace (or several merged) as the viewer's views see it, whoever holds its rows: `WholeTrace` over a model
 * read whole into the browser, `PagedTrace` over a trace `tapedeck view` serves a page at a time. The app asks it
 * for the rows of the link's query, their waterfall, the filter bar's choices and what can be shown; the model
 * (sources, selection lookups, loading state, failures) is the same type for both.
 */
export interface TraceView {
  readonly model: TraceModel;
  /** Every row is in the browser; else the server holds them and views needing them all are not offered. */
  readonly whole: boolean;
  /** The views this trace can show. */
  readonly views: readonly ViewName[];
  /** The rows a query keeps, in time order (`hideTransport` leaves out HTTP envelope lines). */
  rows(query: LineQuery, options?: { hideTransport?: boolean }): RowList;
  /** The waterfall's bars for the rows of a query. */
  bars(query: LineQuery, rows: RowList): BarSource;
  /** What the filter bar offers to pick from. */
  facets(): Facets;
  /** Rows in the whole trace. */
  total(): number;
  /** A view is about to be shown: fetch what it needs that is not at hand (a paged trace's Tools figures). */
  prepare(view: ViewName | 'home'): void;
  /** Where the rows of a query download as JSONL from the server; undefined where the page exports them itself. */
  exportHref(query: LineQuery): string | undefined;
}

/**
 * A RowList over rows the browser holds.
 *
 * @example heldRows(model.rows(), undefined).at(0)
 */
export function heldRows(rows: readonly Row[], error: string | undefined): RowList {
  return {
    count: rows.length,
    known: true,
    error,
    at: (index) => rows[index],
    indexOf: (key) => rows.findIndex((row) => row.key === key),
    locate: async (key) => rows.findIndex((row) => row.key === key),
    held: rows,
  };
}
