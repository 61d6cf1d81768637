import { type LineQuery, queryFromParams, queryKey } from 'mcp-tapedeck/trace';
import { useMemo } from 'preact/hooks';
import { callList } from '../data/calls.js';
import type { Facets } from '../data/facets.js';
import { type Finder, finderOf } from '../data/highlight.js';
import type { Row } from '../data/rows.js';
import { heldRows, type RowList, type TraceView } from '../data/trace-view.js';
import { transportShown } from '../data/transport.js';

/** What the link's search and filter parameters leave of the open traces, for the views, the footer and the keys. */
export interface Filtered {
  /** The link's query. */
  query: LineQuery;
  /** Rows in the open traces. */
  total: number;
  /** The rows the timeline shows. */
  rows: RowList;
  /** The Calls view's list (computed only while that view is shown; else empty). */
  calls: readonly Row[];
  /** Calls among every row, for the footer's "of N calls". */
  totalCalls: number;
  /** The regular expression does not compile. */
  error: string | undefined;
  /** Marks the search's matches. */
  find: Finder | undefined;
  /** The open traces hold HTTP envelope lines, and whether they show. */
  transport: boolean;
  transportShown: boolean;
  /** Tool names, methods and servers to pick from. */
  facets: Facets;
  /** Whether a search or filter narrows the rows. */
  narrowed: boolean;
}

const NONE = heldRows([], undefined);

/**
 * The link's parameters applied to a trace, whoever holds its rows: its query (q, re, tool, method, dir, kind,
 * server, err), tl (transport lines), sort (calls).
 *
 * @example const { rows, find } = useFilters(trace, version, route.params, route.view === 'calls');
 */
export function useFilters(
  trace: TraceView | undefined,
  version: number,
  p: Readonly<Record<string, string>>,
  callsShown: boolean,
): Filtered {
  const facets = useMemo(() => trace?.facets(), [trace, version]);
  const showTransport = transportShown(p.tl, trace?.model.sources ?? []);
  const query = queryFromParams(p);
  const key = queryKey(query);
  const hideTransport = (facets?.transport ?? false) && !showTransport;
  const rows = trace ? trace.rows(query, { hideTransport }) : NONE;
  const calls = useMemo(
    () => (callsShown && rows.held ? callList(rows.held, p.sort) : []),
    [rows, p.sort, callsShown, version],
  );
  const find = useMemo(() => (rows.error ? undefined : finderOf(p.q, p.re === '1')), [p.q, p.re, rows.error]);
  return {
    query,
    total: trace?.total() ?? 0,
    rows,
    calls,
    totalCalls: facets?.calls ?? 0,
    error: rows.error,
    find,
    transport: facets?.transport ?? false,
    transportShown: showTransport,
    facets: facets ?? { tools: [], methods: [], servers: [], calls: 0, transport: false },
    narrowed: key !== '' || hideTransport,
  };
}
