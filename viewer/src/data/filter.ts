import {
  type Exchange,
  isEmptyQuery,
  kindMatches,
  type LineQuery,
  nameMatches,
  textMatch,
  toolName,
} from 'mcp-tapedeck/trace';
import { isErrorRow, type Row } from './rows.js';
import { isTransportRow } from './transport.js';

/**
 * What the views show besides a query's filters: HTTP envelope lines left out unless asked for (transport.ts).
 */
export interface RowOptions {
  hideTransport?: boolean;
}

export interface CompiledFilter {
  /** True when the filter keeps everything (views skip the pass). */
  empty: boolean;
  /** The regex did not compile: shown next to the search box. */
  error: string | undefined;
  test(row: Row, sourceName: string): boolean;
}

/** The request a row is part of, walking up to the top-level one. */
export function rootExchange(row: Row): Exchange | undefined {
  let exchange = row.exchange ?? row.parent;
  while (exchange?.parent) exchange = exchange.parent;
  return exchange;
}

/** The method a row is about (requests, responses, notifications). */
export function rowMethod(row: Row): string | undefined {
  return row.exchange?.method ?? row.notification?.method;
}

/** The JSON text a search looks through: both sides of an exchange, or the line itself. */
export function haystack(row: Row): string {
  const exchange = row.exchange;
  if (exchange) {
    const r = exchange.response;
    const answer = r ? JSON.stringify(r.error ?? r.result ?? null) : '';
    return `${exchange.method} ${JSON.stringify(exchange.request.params ?? null)} ${answer}`;
  }
  if (row.notification)
    return `${row.notification.method} ${JSON.stringify(row.notification.params ?? null)}`;
  if (row.kind === 'text' || row.kind === 'stderr')
    return String((row.line as { text?: unknown }).text ?? '');
  return JSON.stringify(row.line);
}

/**
 * Compiles a query (trace/query.ts) once per change of the search box, not once per row. Search and filters are
 * shared by the timeline and the calls table; they come from the link, so a filtered view is a link like any other.
 *
 * @example const f = compileFilter({ tool: 'echo', q: 'hello' }); rows.filter((r) => f.test(r, name))
 */
export function compileFilter(query: LineQuery, options: RowOptions = {}): CompiledFilter {
  const match = textMatch(query);
  const error = match?.error;
  const server = query.server || undefined;
  const empty = isEmptyQuery(query) && !options.hideTransport;
  return {
    empty,
    error,
    test(row, sourceName) {
      if (options.hideTransport && isTransportRow(row)) return false;
      if (query.dir && row.dir !== query.dir) return false;
      if (!kindMatches(query.kind, row.kind)) return false;
      if (server && row.server !== server && sourceName !== server) return false;
      if (query.errors !== undefined && isErrorRow(row) !== query.errors) return false;
      if (!nameMatches(query.method, rowMethod(row))) return false;
      if (query.tool?.trim()) {
        const root = rootExchange(row);
        if (!nameMatches(query.tool, root ? toolName(root.request) : undefined)) return false;
      }
      if (match === undefined) return true;
      return match.error === undefined && match.test(haystack(row));
    },
  };
}

/** Applies a filter to rows; the same array back when the filter keeps everything. */
export function filterRows(
  rows: readonly Row[],
  filter: CompiledFilter,
  sourceName: (src: number) => string,
): readonly Row[] {
  if (filter.empty) return rows;
  return rows.filter((row) => filter.test(row, sourceName(row.src)));
}
