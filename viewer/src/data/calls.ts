import { toolName } from 'mcp-tapedeck/trace';
import type { Row } from './rows.js';

/**
 * The Calls view's list: the tools/call requests among the rows a search and filters left, sorted by a column. The
 * page counts and steps through the same list the table shows (the footer, the next-error key).
 */

export const CALL_COLUMNS = ['time', 'tool', 'args', 'result', 'latency', 'status'] as const;
export type CallColumn = (typeof CALL_COLUMNS)[number];
export const SORTABLE: readonly CallColumn[] = ['time', 'tool', 'latency', 'status'];

/** A client's tools/call request row. */
export function isCallRow(row: Row): boolean {
  return row.kind === 'request' && row.exchange!.method === 'tools/call' && row.exchange!.dir === 'in';
}

/**
 * Parses `-latency` into a column and a direction; unknown columns sort by time.
 *
 * @example parseSort('-latency') // → { column: 'latency', desc: true }
 */
export function parseSort(sort: string | undefined): { column: CallColumn; desc: boolean } {
  const desc = sort?.startsWith('-') ?? false;
  const name = (desc ? sort!.slice(1) : sort) as CallColumn;
  return { column: SORTABLE.includes(name) ? name : 'time', desc };
}

/** Sort key of a call for a column. */
function sortValue(row: Row, column: CallColumn): number | string {
  const exchange = row.exchange!;
  switch (column) {
    case 'tool':
      return toolName(exchange.request) ?? '';
    case 'latency':
      return exchange.latencyMs ?? -1;
    case 'status':
      return exchange.outcome;
    default:
      return row.time ?? 0;
  }
}

/**
 * The calls among `rows`, sorted as `sort` says (time order when it names no column).
 *
 * @example callList(rows, '-latency')[0] // → the slowest call
 */
export function callList(rows: readonly Row[], sort: string | undefined): Row[] {
  const { column, desc } = parseSort(sort);
  const list = rows.filter(isCallRow);
  if (column !== 'time' || desc) {
    const sign = desc ? -1 : 1;
    list.sort((a, b) => {
      const x = sortValue(a, column);
      const y = sortValue(b, column);
      return (x < y ? -1 : x > y ? 1 : 0) * sign || a.src - b.src || (a.time ?? 0) - (b.time ?? 0);
    });
  }
  return list;
}
