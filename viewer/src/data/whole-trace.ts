import { type LineQuery, queryKey } from 'mcp-tapedeck/trace';
import type { ViewName } from '../route.js';
import { type Facets, facetsOf } from './facets.js';
import { compileFilter, filterRows } from './filter.js';
import type { TraceModel } from './model.js';
import { heldRows, type RowList, type TraceView } from './trace-view.js';
import { type BarSource, memoryBars, waterfallOf } from './waterfall.js';

const VIEWS: readonly ViewName[] = ['timeline', 'waterfall', 'calls', 'tools', 'diff', 'raw', 'agent'];

/**
 * Traces read whole into the browser (a report, the files `tapedeck view` serves whole, files dropped on the page,
 * a collector's trace) as a TraceView: the rows a query keeps are filtered here, once per query and change of the
 * model, and every view is offered.
 *
 * @example const view = new WholeTrace(model); view.rows({ tool: 'echo' }).count
 */
export class WholeTrace implements TraceView {
  readonly whole = true;
  readonly views = VIEWS;
  private last: { key: string; version: number; rows: RowList } | undefined;
  private lastBars: { rows: RowList; version: number; bars: BarSource } | undefined;
  private lastFacets: { version: number; facets: Facets } | undefined;

  constructor(readonly model: TraceModel) {}

  rows(query: LineQuery, options: { hideTransport?: boolean } = {}): RowList {
    const key = `${queryKey(query)}|${options.hideTransport ? 1 : 0}`;
    const version = this.model.version;
    if (this.last?.key === key && this.last.version === version) return this.last.rows;
    const filter = compileFilter(query, options);
    const model = this.model;
    const rows = filterRows(model.rows(), filter, (src) => model.source(src)?.info.name ?? '');
    this.last = { key, version, rows: heldRows(rows, filter.error) };
    return this.last.rows;
  }

  bars(_query: LineQuery, rows: RowList): BarSource {
    const version = this.model.version;
    if (this.lastBars?.rows !== rows || this.lastBars.version !== version)
      this.lastBars = {
        rows,
        version,
        bars: memoryBars(waterfallOf(rows.held ?? [], this.model.start())),
      };
    return this.lastBars.bars;
  }

  facets(): Facets {
    const version = this.model.version;
    if (this.lastFacets?.version !== version) this.lastFacets = { version, facets: facetsOf(this.model) };
    return this.lastFacets.facets;
  }

  total(): number {
    return this.model.rows().length;
  }

  prepare(): void {}

  exportHref(): undefined {
    return undefined;
  }
}
