import type { ComponentChild } from 'preact';
import type { TraceView } from '../data/trace-view.js';
import { formatHash, type Route, type ViewName, withParams } from '../route.js';
import type { LocalFile } from '../source/local.js';
import { AgentRunView } from './agent.js';
import { Calls } from './calls.js';
import { Detail } from './detail.js';
import { DiffView } from './diff.js';
import { ExportLink, ExportMenu } from './export-menu.js';
import { FilterBar } from './filter-bar.js';
import type { Following } from './follow.js';
import { ROW_HEIGHTS } from './narrow.js';
import { Raw } from './raw.js';
import { Splitter } from './splitter.js';
import type { ShownCount } from './status-bar.js';
import { Timeline } from './timeline.js';
import { Tools } from './tools.js';
import type { Filtered } from './use-filters.js';
import { WaterfallView } from './waterfall.js';

export interface ViewsProps {
  trace: TraceView | undefined;
  version: number;
  route: Route;
  go: (route: Route, how?: 'push' | 'replace') => void;
  set: (params: Record<string, string | undefined>) => void;
  filtered: Filtered;
  count: ShownCount;
  following: Following | undefined;
  /** The home screen, shown while no trace is open. */
  home: ComponentChild;
  narrow: boolean;
  detailSize: number | undefined;
  setDetailSize: (size: number | undefined) => void;
  addFiles: (files: ArrayLike<LocalFile>) => void;
}

const TITLES: Record<ViewName, string> = {
  timeline: 'Timeline',
  waterfall: 'Waterfall',
  calls: 'Calls',
  tools: 'Tools',
  diff: 'Diff',
  raw: 'Raw',
  agent: 'Agent',
};

/**
 * The filter bar and the view the route names, over one TraceView: the lists and the waterfall narrowed by the
 * link's query, the detail pane of the selected row beside them. A view the trace cannot show (Calls, Diff and
 * Raw need every row in the browser) says so and what works instead.
 */
export function Views(props: ViewsProps) {
  const { trace, route, set, filtered, count } = props;
  const model = trace?.model;
  const p = route.params;
  const view = route.view;
  // The views the filter bar narrows: the lists, and the waterfall drawn from the timeline's rows.
  const filterView = view === 'timeline' || view === 'calls' || view === 'waterfall';
  const shown = view !== 'home' && (trace?.views.includes(view) ?? false);
  const selected = p.sel ? model?.row(p.sel) : undefined;
  const detail = shown && selected ? <SelectedDetail {...props} /> : null;
  const href = trace?.exportHref(filtered.query);
  return (
    <>
      {trace && model && filterView && shown && (trace.whole || model.sources.length > 0) ? (
        <FilterBar
          params={p}
          set={set}
          tools={filtered.facets.tools}
          methods={filtered.facets.methods}
          servers={filtered.facets.servers}
          error={filtered.error}
          shown={count.shown}
          total={count.total}
          noun={count.noun}
          counting={count.counting}
          transport={filtered.transport}
          transportShown={filtered.transportShown}
        >
          {href === undefined ? (
            <ExportMenu model={model} rows={filtered.rows.held ?? []} />
          ) : (
            <ExportLink href={href} />
          )}
        </FilterBar>
      ) : null}
      <main
        class={`view v-${view}${detail && filterView ? ' with-detail' : ''}`}
        style={
          props.detailSize === undefined
            ? undefined
            : { '--detail-size': `${Math.round(props.detailSize)}px` }
        }
      >
        <Shown {...props} detail={detail} />
      </main>
    </>
  );
}

/** The view itself. */
function Shown(props: ViewsProps & { detail: ComponentChild }) {
  const { trace, version, route, go, set, filtered, detail } = props;
  const model = trace?.model;
  const p = route.params;
  const view = route.view;
  const select = (key: string | undefined) => set({ sel: key });
  const showView = (name: ViewName, extra: Record<string, string | undefined> = {}) =>
    go({ ...withParams(route, extra), view: name }, 'push');
  // The trace the Tools and Raw views show: the one the link names (by index), else the first open.
  const source = model?.source(Number(p.src ?? 0) || 0) ?? model?.sources[0];
  const rowHeight = props.narrow ? ROW_HEIGHTS.narrow : ROW_HEIGHTS.wide;
  if (!trace || !model) return <>{props.home}</>;
  if (!trace.whole && model.sources.length === 0)
    return <p class="empty">{model.failures[0] ?? 'Opening the trace…'}</p>;
  if (view === 'home' || (model.sources.length === 0 && !model.loading)) return <>{props.home}</>;
  if (!trace.views.includes(view))
    return (
      <p class="empty paged-note">
        {TITLES[view]} needs every row in the browser, and this trace is served a page at a time. Open it
        whole with <code>tapedeck view --no-paged {source?.info.name}</code>, or use{' '}
        <code>tapedeck {view === 'diff' ? 'diff' : 'show'}</code> in a terminal.
      </p>
    );
  if (view === 'timeline')
    return !filtered.rows.known ? (
      // A search reads the whole file on the server: seconds for a gigabyte.
      <p class="empty" role="status">
        Searching the trace on the server…
      </p>
    ) : (
      <>
        <Timeline
          model={model}
          rows={filtered.rows}
          selected={p.sel}
          select={select}
          find={filtered.find}
          following={props.following}
          rowHeight={rowHeight}
        />
        {detail}
      </>
    );
  if (view === 'waterfall') {
    const bars = trace.bars(filtered.query, filtered.rows);
    return (
      <>
        <WaterfallView
          bars={bars}
          zero={model.start() ?? bars.start}
          version={version}
          span={p.span}
          setSpan={(span) => set({ span })}
          selected={p.sel}
          select={select}
        />
        {detail}
      </>
    );
  }
  if (view === 'calls')
    return (
      <>
        <Calls
          model={model}
          calls={filtered.calls}
          filtered={filtered.narrowed}
          sort={p.sort}
          setSort={(sort) => set({ sort })}
          selected={p.sel}
          select={select}
          find={filtered.find}
          following={props.following}
          rowHeight={rowHeight}
        />
        {detail}
      </>
    );
  if (view === 'tools' && source)
    return (
      <Tools
        source={source}
        version={version}
        openTool={(tool) => showView('calls', { tool, method: undefined })}
        openMethod={(method) => showView('timeline', { method, tool: undefined })}
      />
    );
  if (view === 'agent')
    return (
      <AgentRunView model={model} version={version} reveal={(key) => showView('timeline', { sel: key })} />
    );
  if (view === 'diff')
    return (
      <DiffView
        model={model}
        version={version}
        params={p}
        set={set}
        reveal={(key) => showView('timeline', { sel: key })}
        addFiles={props.addFiles}
      />
    );
  if (view === 'raw' && source)
    return (
      <Raw
        source={source}
        version={version}
        file={p.file}
        line={p.line ? Number(p.line) : undefined}
        show={(file, line) => set({ file, line: line === undefined ? undefined : String(line) })}
        reveal={(key) => showView('timeline', { sel: key })}
        wrap={p.wrap === '1'}
        setWrap={(wrap) => set({ wrap: wrap ? '1' : undefined })}
      />
    );
  return null;
}

/** The detail pane of the selected row, beside the lists and the waterfall. */
function SelectedDetail({ trace, route, go, set, filtered, detailSize, setDetailSize }: ViewsProps) {
  const model = trace!.model;
  const p = route.params;
  const selected = p.sel ? model.row(p.sel) : undefined;
  if (!selected) return null;
  const select = (key: string | undefined) => set({ sel: key });
  return (
    <>
      <Splitter size={detailSize} setSize={setDetailSize} />
      <Detail
        model={model}
        row={selected}
        select={select}
        link={() => `${location.href.split('#')[0]}${formatHash(route)}`}
        openRaw={(src, file, line) =>
          go({ ...withParams(route, { src: String(src), file, line: String(line) }), view: 'raw' }, 'push')
        }
        close={() => select(undefined)}
        find={filtered.find}
      />
    </>
  );
}
