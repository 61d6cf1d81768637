import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { paramsAfterClose } from '../data/close.js';
import { errorPosition, nextError } from '../data/error-nav.js';
import { TraceModel } from '../data/model.js';
import { formatHash, type ViewName, withParams } from '../route.js';
import { type LocalFile, localSource } from '../source/local.js';
import type { Opened, TraceListing, TraceRef, TraceSource } from '../source/trace-source.js';
import { Calls } from './calls.js';
import { Detail } from './detail.js';
import { DiffView } from './diff.js';
import { ErrorSteps } from './error-steps.js';
import { ExportMenu } from './export-menu.js';
import { FilterBar } from './filter-bar.js';
import { LiveBar, useFollowing } from './follow.js';
import { Header } from './header.js';
import { Home } from './home.js';
import { ROW_HEIGHTS, useNarrow } from './narrow.js';
import { Notices } from './notices.js';
import { Raw } from './raw.js';
import { Splitter, useDetailSize } from './splitter.js';
import { type ShownCount, StatusBar } from './status-bar.js';
import { Timeline } from './timeline.js';
import { Tools } from './tools.js';
import { useFilters } from './use-filters.js';
import { usePageKeys } from './use-keys.js';
import { useRoute, useVersion } from './use-route.js';
import { WaterfallView } from './waterfall.js';
import { useWaterfall } from './waterfall-data.js';

/**
 * The whole viewer: the route, which view shows the traces, and the source they come from. `page` is the source
 * the page was made for (chosen once as it loaded); files the user drops or picks are added beside the traces
 * already open, read by a local source. Every source is used through the TraceSource interface alone.
 */
export function App({ page }: { page: TraceSource }) {
  const { route, go, set } = useRoute();
  const [model, setModel] = useState<TraceModel | undefined>();
  const [listing, setListing] = useState<{ traces?: TraceListing[]; error?: string }>({});
  const [dragging, setDragging] = useState(false);
  const [detailSize, setDetailSize] = useDetailSize();
  const narrow = useNarrow();
  const version = useVersion(model);
  // What is being read or followed into the model shown, stopped when another model replaces it.
  const reading = useRef<Opened[]>([]);
  const opened = useRef<string | undefined>(undefined);

  /** Shows a source's traces in a fresh model, stopping whatever the previous one was reading. */
  const show = (source: TraceSource, ref?: TraceRef): Opened => {
    for (const handle of reading.current.splice(0)) handle.close();
    const fresh = new TraceModel();
    setModel(fresh);
    const handle = source.open(fresh, ref);
    reading.current.push(handle);
    return handle;
  };

  // The page's own traces: a report's embedded ones, or the files `tapedeck view` serves.
  useEffect(() => {
    if (page.capabilities.own) show(page);
    return () => {
      for (const handle of reading.current.splice(0)) handle.close();
    };
  }, []);

  // A trace the URL names on a listing source: open it (once per reference), followed live while recorded.
  const remoteKey = route.remote ? `${route.remote.kind}/${route.remote.id}` : undefined;
  useEffect(() => {
    if (!page.capabilities.list || !route.remote || opened.current === remoteKey) return;
    opened.current = remoteKey;
    // The collector's own link form (`#trace=<id>`) becomes the viewer's, so later changes keep the trace.
    if (!location.hash.startsWith('#/')) go(route, 'replace');
    const handle = show(page, route.remote);
    return () => {
      handle.close();
      opened.current = undefined;
    };
  }, [remoteKey]);

  // The home page of a listing source lists its traces.
  useEffect(() => {
    if (!page.capabilities.list || route.view !== 'home' || model) return;
    page
      .list()
      .then((traces) => setListing(traces ? { traces } : {}))
      .catch((err: unknown) => setListing({ error: err instanceof Error ? err.message : String(err) }));
  }, [route.view, model]);

  // Traces are open but the URL is the home page: show the timeline.
  const hasTraces = (model?.sources.length ?? 0) > 0;
  useEffect(() => {
    if (hasTraces && route.view === 'home' && route.remote === undefined)
      go({ ...route, view: 'timeline' }, 'replace');
  }, [hasTraces, route.view]);

  const p = route.params;
  const view = route.view;
  const listView = view === 'timeline' || view === 'calls';
  // The views the filter bar narrows: the lists, and the waterfall drawn from the timeline's rows.
  const filterView = listView || view === 'waterfall';
  const filtered = useFilters(model, version, p, view === 'calls');
  const bars = useWaterfall(model, filtered.rows, version, view === 'waterfall');
  const list = view === 'calls' ? filtered.calls : filtered.rows;
  const live = model?.following();
  const following = useFollowing(live !== undefined, list.length);
  const rowHeight = narrow ? ROW_HEIGHTS.narrow : ROW_HEIGHTS.wide;

  /**
   * Files dropped or picked: beside the traces already open (a second trace to compare with), in a fresh view
   * when none are. A file that is not a trace becomes a notice; what is open stays.
   */
  const openLocal = (files: ArrayLike<LocalFile>) => {
    if (model && hasTraces) reading.current.push(localSource(files, 'add').open(model));
    else show(localSource(files));
    if (view === 'home' || !hasTraces) go({ remote: undefined, view: 'timeline', params: {} }, 'push');
  };
  /**
   * Closes a trace the user added or opened beside others. The link loses what named it (its selected row, its
   * Tools/Raw/Diff side, a filter only it matched); the rest of the link, a selection in another trace among it,
   * stays. Followed and linked traces, and the last one open, stay (TraceModel.closeBlock).
   */
  const closeTrace = (index: number) => {
    if (!model?.removeSource(index)) return;
    set(paramsAfterClose(model, index, p));
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const files = event.dataTransfer?.files;
    if (files && files.length > 0) openLocal(files);
  };

  const selected = p.sel ? model?.row(p.sel) : undefined;
  const select = (key: string | undefined) => set({ sel: key });
  const selectedIndex = p.sel === undefined ? -1 : list.findIndex((r) => r.key === p.sel);
  const stepError = (direction: 1 | -1) => {
    const at = nextError(list, selectedIndex, direction);
    if (at !== undefined) select(list[at]!.key);
  };
  usePageKeys({
    search: () => document.querySelector<HTMLInputElement>('input[aria-label="search"]')?.focus(),
    close: () => select(undefined),
    stepError: listView ? stepError : undefined,
  });
  const showView = (name: ViewName, extra: Record<string, string | undefined> = {}) =>
    go({ ...withParams(route, extra), view: name }, 'push');
  // The trace the Tools and Raw views show: the one the link names (by index), else the first open.
  const source = model?.source(Number(p.src ?? 0) || 0) ?? model?.sources[0];
  const detail =
    selected && model ? (
      <>
        <Splitter size={detailSize} setSize={setDetailSize} />
        <Detail
          model={model}
          row={selected}
          select={select}
          link={() => `${location.href.split('#')[0]}${formatHash(route)}`}
          openRaw={(src, file, line) => showView('raw', { src: String(src), file, line: String(line) })}
          close={() => select(undefined)}
          find={filtered.find}
        />
      </>
    ) : null;
  // Counted once per change of the list, not on every render (a 100k-row list is read while it loads).
  const errors = useMemo(
    () => (listView ? errorPosition(list, selectedIndex) : undefined),
    [list, version, selectedIndex, listView],
  );
  // What the list on screen shows, of how many: the footer and the filter bar say the same.
  const count: ShownCount =
    view === 'calls'
      ? { shown: filtered.calls.length, total: filtered.totalCalls, noun: 'calls' }
      : { shown: filtered.rows.length, total: filtered.all.length, noun: 'rows' };

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the whole page is a drop target for files; the Open button is the keyboard way
    <div
      class={`app${dragging ? ' dragging' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(e) => {
        if (e.relatedTarget === null) setDragging(false);
      }}
      onDrop={onDrop}
    >
      <button
        type="button"
        class="skip-link"
        onClick={() => document.querySelector<HTMLElement>('main .vlist, main .tools, main .home')?.focus()}
      >
        Skip to the {listView ? 'list' : 'content'}
      </button>
      <Header
        model={model}
        route={route}
        page={page}
        counts={{ rows: filtered.rows.length, calls: filtered.totalCalls }}
        go={go}
        openFiles={openLocal}
        closeTrace={closeTrace}
      />
      <Notices model={model} />
      {live && listView ? <LiveBar view={live} following={following} /> : null}
      {model && filterView ? (
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
          transport={filtered.transport}
          transportShown={filtered.transportShown}
        >
          <ExportMenu model={model} rows={filtered.rows} />
        </FilterBar>
      ) : null}
      <main
        class={`view v-${view}${detail && filterView ? ' with-detail' : ''}`}
        style={detailSize === undefined ? undefined : { '--detail-size': `${Math.round(detailSize)}px` }}
      >
        {!model || view === 'home' || (!hasTraces && !model.loading) ? (
          <Home open={openLocal} traces={listing.traces} listError={listing.error} />
        ) : view === 'timeline' ? (
          <>
            <Timeline
              model={model}
              rows={filtered.rows}
              selected={p.sel}
              select={select}
              find={filtered.find}
              following={live ? following : undefined}
              rowHeight={rowHeight}
            />
            {detail}
          </>
        ) : view === 'waterfall' && bars ? (
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
        ) : view === 'calls' ? (
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
              following={live ? following : undefined}
              rowHeight={rowHeight}
            />
            {detail}
          </>
        ) : view === 'tools' && source ? (
          <Tools
            source={source}
            version={version}
            openTool={(tool) => showView('calls', { tool, method: undefined })}
            openMethod={(method) => showView('timeline', { method, tool: undefined })}
          />
        ) : view === 'diff' ? (
          <DiffView
            model={model}
            version={version}
            params={p}
            set={set}
            reveal={(key) => showView('timeline', { sel: key })}
            addFiles={(files) => reading.current.push(localSource(files, 'add').open(model))}
          />
        ) : view === 'raw' && source ? (
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
        ) : null}
      </main>
      <StatusBar model={model} version={version} count={listView ? count : undefined}>
        {errors ? <ErrorSteps count={errors.count} at={errors.at} step={stepError} /> : null}
      </StatusBar>
      {dragging ? <div class="drop-overlay">Drop trace files to add them</div> : null}
    </div>
  );
}
