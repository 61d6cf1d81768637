import { type Exchange, toolName } from 'mcp-tapedeck/trace';
import { isErrorRow, type Row } from './rows.js';
import { isTransportRow } from './transport.js';

/**
 * Search and filters, shared by the timeline and the calls table. All fields are optional; an empty filter keeps
 * everything. They come from the URL, so a filtered view is a link like any other.
 */
export interface RowFilter {
  /** Text (case-insensitive) or, with `regex`, a regular expression matched against the message JSON. */
  q?: string;
  regex?: boolean;
  /** Tool name (substring, case-insensitive): rows of tools/call exchanges of that tool, with their children. */
  tool?: string;
  /** Method (substring, case-insensitive). */
  method?: string;
  dir?: 'in' | 'out';
  /** A `server` field value, or a source's name when several traces are open. */
  server?: string;
  errors?: boolean;
  /** Leave out HTTP envelope lines (transport.ts). */
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
 * Compiles a filter once per change of the search box, not once per row.
 *
 * @example const f = compileFilter({ tool: 'echo', q: 'hello' }); rows.filter((r) => f.test(r, name))
 */
export function compileFilter(filter: RowFilter): CompiledFilter {
  let error: string | undefined;
  let match: ((text: string) => boolean) | undefined;
  const q = filter.q?.trim() ?? '';
  if (q !== '') {
    if (filter.regex) {
      try {
        const re = new RegExp(q, 'i');
        match = (text) => re.test(text);
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
        match = () => false;
      }
    } else {
      const needle = q.toLowerCase();
      match = (text) => text.toLowerCase().includes(needle);
    }
  }
  const tool = filter.tool?.trim().toLowerCase() || undefined;
  const method = filter.method?.trim().toLowerCase() || undefined;
  const server = filter.server || undefined;
  const empty =
    match === undefined &&
    !tool &&
    !method &&
    !filter.dir &&
    !server &&
    !filter.errors &&
    !filter.hideTransport;
  return {
    empty,
    error,
    test(row, sourceName) {
      if (filter.hideTransport && isTransportRow(row)) return false;
      if (filter.dir && row.dir !== filter.dir) return false;
      if (server && row.server !== server && sourceName !== server) return false;
      if (filter.errors && !isErrorRow(row)) return false;
      if (method && !rowMethod(row)?.toLowerCase().includes(method)) return false;
      if (tool) {
        const root = rootExchange(row);
        const name = root ? toolName(root.request) : undefined;
        if (!name?.toLowerCase().includes(tool)) return false;
      }
      return match === undefined || match(haystack(row));
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
