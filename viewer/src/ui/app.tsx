import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Boot } from '../data/boot.js';
import { fetchServedFiles, readLocalFiles } from '../data/boot.js';
import { type CollectorTrace, type LiveState, listTraces, openRemote } from '../data/collector.js';
import { compileFilter, filterRows, type RowFilter } from '../data/filter.js';
import { type InputFile, loadFiles } from '../data/load.js';
import { TraceModel } from '../data/model.js';
import { formatHash, type Route, type ViewName, withParams } from '../route.js';
import { Calls } from './calls.js';
import { Detail } from './detail.js';
import { DiffView } from './diff.js';
import { FilterBar } from './filter-bar.js';
import { Header } from './header.js';
import { Home } from './home.js';
import { Raw } from './raw.js';
import { StatusBar } from './status-bar.js';
import { Timeline } from './timeline.js';
import { Tools } from './tools.js';
import { useRoute, useVersion } from './use-route.js';

/** The whole viewer: where the traces come from, the route, and which view shows them. */
export function App({ boot }: { boot: Boot }) {
  const { route, go, set } = useRoute();
  const [model, setModel] = useState<TraceModel | undefined>();
  const [live, setLive] = useState<LiveState | undefined>();
  const [collector, setCollector] = useState<{ traces?: CollectorTrace[]; error?: string }>({});
  const [dragging, setDragging] = useState(false);
  const version = useVersion(model);
  const opened = useRef<string | undefined>(undefined);

  const open = (files: readonly InputFile[], next: Route | undefined) => {
    const fresh = new TraceModel();
    setModel(fresh);
    setLive(undefined);
    if (next) go(next, 'push');
    read(files, fresh);
  };

  // The page's own data: a report's embedded traces, or the files `tapedeck view` serves.
  useEffect(() => {
    if (boot.kind === 'report') open(boot.files, undefined);
    if (boot.kind === 'files') {
      const fresh = new TraceModel();
      setModel(fresh);
      fresh.loading = { progress: 0, text: 'Fetching traces…' };
      fetchServedFiles(boot.api)
        .then((files) => read(files, fresh))
        .catch((err: unknown) => fail(fresh, 'Could not fetch the traces', err));
    }
  }, []);

  // A collector trace named by the URL: open it (once per id) and follow it live.
  const remoteKey = route.remote ? `${route.remote.kind}/${route.remote.id}` : undefined;
  useEffect(() => {
    if (boot.kind !== 'standalone' || !route.remote || opened.current === remoteKey) return;
    opened.current = remoteKey;
    // The collector's own link form (`#trace=<id>`) becomes the viewer's, so later changes keep the trace.
    if (!location.hash.startsWith('#/')) go(route, 'replace');
    const fresh = new TraceModel();
    setModel(fresh);
    setLive(undefined);
    let stop: (() => void) | undefined;
    let cancelled = false;
    openRemote(collectorAccess(), route.remote, fresh, setLive)
      .then((s) => {
        if (cancelled) s();
        else stop = s;
      })
      .catch((err: unknown) => fail(fresh, 'Could not open the trace', err));
    return () => {
      cancelled = true;
      stop?.();
      opened.current = undefined;
    };
  }, [remoteKey]);

  // The home page of a collector lists its traces.
  useEffect(() => {
    if (boot.kind !== 'standalone' || route.view !== 'home' || model) return;
    listTraces(collectorAccess())
      .then((traces) => setCollector(traces ? { traces } : {}))
      .catch((err: unknown) => setCollector({ error: err instanceof Error ? err.message : String(err) }));
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

  const onDrop = async (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const files = event.dataTransfer?.files;
    if (files && files.length > 0)
      open(await readLocalFiles(files), { remote: undefined, view: 'timeline', params: {} });
  };
  const openPicked = async (files: FileList) =>
    open(await readLocalFiles(files), { remote: undefined, view: 'timeline', params: {} });

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
        boot={boot}
        live={live}
        counts={{ rows: rows.length, calls: lists.calls }}
        go={go}
        openFiles={openPicked}
      />
      {model && (view === 'timeline' || view === 'calls') ? (
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
        />
      ) : null}
      <main
        class={`view v-${view}${detail && (view === 'timeline' || view === 'calls') ? ' with-detail' : ''}`}
      >
        {!model || view === 'home' ? (
          <Home open={openPicked} traces={collector.traces} collectorError={collector.error} />
        ) : view === 'timeline' ? (
          <>
            <Timeline model={model} rows={rows} selected={p.sel} select={select} />
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
            addFiles={async (files) => read(await readLocalFiles(files), model, 'add')}
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
      <StatusBar model={model} live={live} version={version} />
      {dragging ? <div class="drop-overlay">Drop trace files to open them</div> : null}
    </div>
  );
}

/** Reads files into a model; a failure becomes a line in the status bar, never a blank page. */
function read(files: readonly InputFile[], model: TraceModel, how: 'new' | 'add' = 'new'): void {
  model.loading = { progress: 0, text: how === 'add' ? 'Adding…' : 'Reading…' };
  model.changed();
  loadFiles(files, model).catch((err: unknown) => fail(model, 'Could not read the traces', err));
}

function fail(model: TraceModel, what: string, err: unknown): void {
  model.loading = undefined;
  model.failures.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
  model.changed();
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

/** The collector serving this page, and the token the page was opened with (`?token=` or `#…&token=`). */
function collectorAccess() {
  const url = new URL(location.href);
  const token =
    url.searchParams.get('token') ??
    new URLSearchParams(url.hash.split('?')[1] ?? '').get('token') ??
    undefined;
  return { base: new URL('./', url), token: token ?? undefined };
}
