import { useMemo } from 'preact/hooks';
import { callList } from '../data/calls.js';
import { type Facets, facetsOf } from '../data/facets.js';
import { compileFilter, filterRows, type RowFilter } from '../data/filter.js';
import { type Finder, finderOf } from '../data/highlight.js';
import type { TraceModel } from '../data/model.js';
import type { Row } from '../data/rows.js';
import { transportShown } from '../data/transport.js';

/** What the link's search and filter parameters leave of the open traces, for the views, the footer and the keys. */
export interface Filtered {
  /** Every row, in time order. */
  all: readonly Row[];
  /** The rows the timeline shows. */
  rows: readonly Row[];
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

/**
 * The link's parameters applied: q, re, tool, method, dir, server, err, tl (transport lines), sort (calls).
 *
 * @example const { rows, find } = useFilters(model, version, route.params, route.view === 'calls');
 */
export function useFilters(
  model: TraceModel | undefined,
  version: number,
  p: Readonly<Record<string, string>>,
  callsShown: boolean,
): Filtered {
  const sources = model?.sources ?? [];
  const facets = useMemo(() => facetsOf(model), [model, version]);
  const showTransport = transportShown(p.tl, sources);
  const filter: RowFilter = {
    ...(p.q ? { q: p.q } : {}),
    regex: p.re === '1',
    ...(p.tool ? { tool: p.tool } : {}),
    ...(p.method ? { method: p.method } : {}),
    ...(p.dir === 'in' || p.dir === 'out' ? { dir: p.dir } : {}),
    ...(p.server ? { server: p.server } : {}),
    errors: p.err === '1',
    hideTransport: facets.transport && !showTransport,
  };
  const compiled = useMemo(
    () => compileFilter(filter),
    [p.q, p.re, p.tool, p.method, p.dir, p.server, p.err, filter.hideTransport],
  );
  const all = model?.rows() ?? [];
  const rows = useMemo(
    () => (model ? filterRows(all, compiled, (src) => model.source(src)?.info.name ?? '') : []),
    [model, version, compiled],
  );
  const calls = useMemo(
    () => (callsShown ? callList(rows, p.sort) : []),
    [rows, p.sort, callsShown, version],
  );
  const find = useMemo(
    () => (compiled.error ? undefined : finderOf(p.q, p.re === '1')),
    [p.q, p.re, compiled],
  );
  return {
    all,
    rows,
    calls,
    totalCalls: facets.calls,
    error: compiled.error,
    find,
    transport: facets.transport,
    transportShown: showTransport,
    facets,
    narrowed: !compiled.empty,
  };
}
