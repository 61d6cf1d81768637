import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { compileFilter, filterRows, type RowFilter } from '../data/filter.js';
import { TraceModel } from '../data/model.js';
import { formatHash, type ViewName, withParams } from '../route.js';
import { type LocalFile, localSource } from '../source/local.js';
import type { Opened, TraceListing, TraceRef, TraceSource } from '../source/trace-source.js';
import { Calls } from './calls.js';
import { Detail } from './detail.js';
import { DiffView } from './diff.js';
import { ExportMenu } from './export-menu.js';
import { FilterBar } from './filter-bar.js';
import { Header } from './header.js';
import { Home } from './home.js';
import { Raw } from './raw.js';
import { StatusBar } from './status-bar.js';
import { Timeline } from './timeline.js';
import { Tools } from './tools.js';
import { useRoute, useVersion } from './use-route.js';
import { WaterfallView } from './waterfall.js';
import { useWaterfall } from './waterfall-data.js';

/**
 * The whole viewer: the route, which view shows the traces, and the source they come from. `page` is the source
 * the page was made for (chosen once as it loaded); files the user drops or picks are opened as a local source
 * instead. Every source is used through the TraceSource interface alone.
 */
export function App({ page }: { page: TraceSource }) {
  const { route, go, set } = useRoute();
  const [model, setModel] = useState<TraceModel | undefined>();
  const [listing, setListing] = useState<{ traces?: TraceListing[]; error?: string }>({});
  const [dragging, setDragging] = useState(false);
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

  // Our data is loaded but the URL is the home page: show the timeline.
  useEffect(() => {
    if (model && route.view === 'home' && route.remote === undefined)
      go({ ...route, view: 'timeline' }, 'replace');
  }, [model, route.view]);

  // `/` jumps to the search box; Escape closes the detail pane.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      const typing =
        target?.tagName === 'INPUT' || target?.tagName === 'TEXTAREA' || target?.tagName === 'SELECT';
      if (event.key === '/' && !typing) {
        const search = document.querySelector<HTMLInputElement>('input[aria-label="search"]');
        if (search) {
          event.preventDefault();
          search.focus();
        }
      } else if (event.key === 'Escape' && !typing) set({ sel: undefined });
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [set]);

  const p = route.params;
  const filter: RowFilter = {
    ...(p.q ? { q: p.q } : {}),
    regex: p.re === '1',
    ...(p.tool ? { tool: p.tool } : {}),
    ...(p.method ? { method: p.method } : {}),
    ...(p.dir === 'in' || p.dir === 'out' ? { dir: p.dir } : {}),
    ...(p.server ? { server: p.server } : {}),
    errors: p.err === '1',
  };
  const compiled = useMemo(
    () => compileFilter(filter),
    [p.q, p.re, p.tool, p.method, p.dir, p.server, p.err],
  );
  const allRows = model?.rows() ?? [];
  const rows = useMemo(
    () => (model ? filterRows(allRows, compiled, (src) => model.sources[src]?.info.name ?? '') : []),
    [model, version, compiled],
  );
  const lists = useMemo(() => facets(model), [model, version]);
  const bars = useWaterfall(model, rows, version, route.view === 'waterfall');

  const openLocal = (files: ArrayLike<LocalFile>) => {
    show(localSource(files));
    go({ remote: undefined, view: 'timeline', params: {} }, 'push');
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const files = event.dataTransfer?.files;
    if (files && files.length > 0) openLocal(files);
  };

  const view = route.view;
  const selected = p.sel ? model?.row(p.sel) : undefined;
  const select = (key: string | undefined) => set({ sel: key });
  const showView = (name: ViewName, extra: Record<string, string | undefined> = {}) =>
    go({ ...withParams(route, extra), view: name }, 'push');
  const source =
    model?.sources[Math.min(Number(p.src ?? 0) || 0, Math.max(0, (model?.sources.length ?? 1) - 1))];
  const detail =
    selected && model ? (
      <Detail
        model={model}
        row={selected}
        select={select}
        link={() => `${location.href.split('#')[0]}${formatHash(route)}`}
        openRaw={(src, file, line) => showView('raw', { src: String(src), file, line: String(line) })}
        close={() => select(undefined)}
      />
    ) : null;

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
      <Header
        model={model}
        route={route}
        page={page}
        counts={{ rows: rows.length, calls: lists.calls }}
        go={go}
        openFiles={openLocal}
      />
      {model && (view === 'timeline' || view === 'calls' || view === 'waterfall') ? (
        <FilterBar
          params={p}
          set={set}
          tools={lists.tools}
          methods={lists.methods}
          servers={lists.servers}
          error={compiled.error}
          shown={rows.length}
          total={allRows.length}
          noun="rows"
        >
          <ExportMenu model={model} rows={rows} />
        </FilterBar>
      ) : null}
      <main
        class={`view v-${view}${detail && (view === 'timeline' || view === 'calls' || view === 'waterfall') ? ' with-detail' : ''}`}
      >
        {!model || view === 'home' ? (
          <Home open={openLocal} traces={listing.traces} listError={listing.error} />
        ) : view === 'timeline' ? (
          <>
            <Timeline model={model} rows={rows} selected={p.sel} select={select} />
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
              rows={rows}
              sort={p.sort}
              setSort={(sort) => set({ sort })}
              selected={p.sel}
              select={select}
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
          />
        ) : null}
      </main>
      <StatusBar model={model} version={version} />
      {dragging ? <div class="drop-overlay">Drop trace files to open them</div> : null}
    </div>
  );
}

/** What the filter bar offers: tool names, methods and servers seen in the open traces. */
function facets(model: TraceModel | undefined) {
  const tools = new Set<string>();
  const methods = new Set<string>();
  let calls = 0;
  for (const source of model?.sources ?? []) {
    for (const t of source.tools) tools.add(t);
    for (const m of source.methods) methods.add(m);
    calls += source.calls;
  }
  const servers = model
    ? [
        ...new Set([
          ...model.servers(),
          ...(model.sources.length > 1 ? model.sources.map((s) => s.info.name) : []),
        ]),
      ]
    : [];
  return { tools: [...tools].sort(), methods: [...methods].sort(), servers, calls };
}
