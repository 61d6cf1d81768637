import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { paramsAfterClose } from '../data/close.js';
import { TraceModel } from '../data/model.js';
import type { PagedApi } from '../data/paged-api.js';
import { PagedTrace } from '../data/paged-trace.js';
import type { TraceView } from '../data/trace-view.js';
import { WholeTrace } from '../data/whole-trace.js';
import { type LocalFile, localSource } from '../source/local.js';
import type { Opened, TraceListing, TraceRef, TraceSource } from '../source/trace-source.js';
import { AuthLane } from './auth-lane.js';
import { ErrorSteps } from './error-steps.js';
import { LiveBar, useFollowing } from './follow.js';
import { Header } from './header.js';
import { Home } from './home.js';
import { useNarrow } from './narrow.js';
import { Notices } from './notices.js';
import { ShortcutSheet } from './shortcuts.js';
import { useDetailSize } from './splitter.js';
import { type ShownCount, StatusBar } from './status-bar.js';
import { useErrorSteps } from './use-errors.js';
import { useFilters } from './use-filters.js';
import { usePageKeys } from './use-keys.js';
import { useRoute, useVersion } from './use-route.js';
import { Views } from './views.js';

/**
 * The whole viewer: the route, which view shows the traces, and the source they come from. `page` is the source
 * the page was made for (chosen once as it loaded); files the user drops or picks are added beside the traces
 * already open, read by a local source. Every source is used through the TraceSource interface alone, and the
 * traces it opens through the TraceView interface: read whole into the browser (WholeTrace), or, when `paged` is
 * given, a trace `tapedeck view` serves a page at a time (PagedTrace), whose views ask the server for what they show.
 */
export function App({ page, paged }: { page: TraceSource; paged?: PagedApi | undefined }) {
  const { route, go, set } = useRoute();
  const { trace, listing, reading, show } = useOpenTraces(page, paged, { route, go });
  const model = trace?.model;
  const [detailSize, setDetailSize] = useDetailSize();
  const narrow = useNarrow();
  const version = useVersion(model);

  // Traces are open (or one is being paged) but the URL is the home page: show the timeline.
  const hasTraces = (model?.sources.length ?? 0) > 0;
  useEffect(() => {
    if ((hasTraces || trace?.whole === false) && route.view === 'home' && route.remote === undefined)
      go({ ...route, view: 'timeline' }, 'replace');
  }, [hasTraces, route.view]);

  const p = route.params;
  const view = route.view;
  useEffect(() => trace?.prepare(view), [trace, view, hasTraces]);
  const listView = view === 'timeline' || view === 'calls';
  const filtered = useFilters(trace, version, p, view === 'calls');
  const list = view === 'calls' ? filtered.calls : (filtered.rows.held ?? []);
  const live = model?.following();
  const following = useFollowing(live !== undefined, list.length);

  /**
   * Files dropped or picked: beside the traces already open (a second trace to compare with), in a fresh view
   * when none are. A file that is not a trace becomes a notice; what is open stays. A paged trace's rows stay on
   * the server and cannot be merged with files the browser reads: the page takes none.
   */
  const openLocal = (files: ArrayLike<LocalFile>) => {
    if (trace?.whole === false) return;
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
  const select = (key: string | undefined) => set({ sel: key });
  const { errors, step: stepError } = useErrorSteps({
    trace,
    paged,
    list,
    query: filtered.query,
    selected: p.sel,
    shown: listView,
    select,
    version,
  });
  const [help, setHelp] = useState(false);
  usePageKeys({
    search: () => document.querySelector<HTMLInputElement>('input[aria-label="search"]')?.focus(),
    close: () => (help ? setHelp(false) : select(undefined)),
    help: () => setHelp(!help),
    stepError,
  });
  // What the list on screen shows, of how many: the footer and the filter bar say the same.
  const count: ShownCount =
    view === 'calls'
      ? { shown: filtered.calls.length, total: filtered.totalCalls, noun: 'calls' }
      : { shown: filtered.rows.count, total: filtered.total, noun: 'rows', counting: filtered.rows.counting };

  return (
    <DropTarget paged={trace?.whole === false} open={openLocal}>
      <button
        type="button"
        class="skip-link"
        onClick={() => document.querySelector<HTMLElement>('main .vlist, main .tools, main .home')?.focus()}
      >
        Skip to the {listView ? 'list' : 'content'}
      </button>
      <Header
        model={model}
        views={trace?.views}
        route={route}
        page={page}
        counts={{ rows: filtered.rows.count, calls: filtered.totalCalls }}
        go={go}
        openFiles={openLocal}
        closeTrace={closeTrace}
      />
      <Notices model={model} />
      <AuthLane model={model} version={version} />
      {live && listView ? <LiveBar view={live} following={following} /> : null}
      <Views
        trace={trace}
        version={version}
        route={route}
        go={go}
        set={set}
        filtered={filtered}
        count={count}
        following={live ? following : undefined}
        home={<Home open={openLocal} traces={listing.traces} listError={listing.error} />}
        narrow={narrow}
        detailSize={detailSize}
        setDetailSize={setDetailSize}
        addFiles={(files: ArrayLike<LocalFile>) => {
          if (model) reading.current.push(localSource(files, 'add').open(model));
        }}
      />
      <StatusBar
        model={model}
        version={version}
        count={listView || trace?.whole === false ? count : undefined}
        note={trace?.whole === false ? 'served a page at a time' : undefined}
      >
        {errors && stepError ? <ErrorSteps count={errors.count} at={errors.at} step={stepError} /> : null}
      </StatusBar>
      {help ? <ShortcutSheet close={() => setHelp(false)} /> : null}
    </DropTarget>
  );
}

/** The page, a drop target for trace files (a paged trace takes none: its rows stay on the server). */
function DropTarget({
  paged,
  open,
  children,
}: {
  paged: boolean;
  open: (files: ArrayLike<LocalFile>) => void;
  children: ComponentChildren;
}) {
  const [dragging, setDragging] = useState(false);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the whole page is a drop target for files; the Open button is the keyboard way
    <div
      class={`app${dragging ? ' dragging' : ''}${paged ? ' paged' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        if (!paged) setDragging(true);
      }}
      onDragLeave={(e) => {
        if (e.relatedTarget === null) setDragging(false);
      }}
      onDrop={(event) => {
        event.preventDefault();
        setDragging(false);
        const files = event.dataTransfer?.files;
        if (files && files.length > 0) open(files);
      }}
    >
      {children}
      {dragging ? <div class="drop-overlay">Drop trace files to add them</div> : null}
    </div>
  );
}

/**
 * The traces the page shows and how they are read: the page's own (a report's, the files `tapedeck view` serves, or
 * the trace it pages), a trace the URL names on a listing source (followed live while recorded), and the list a
 * listing source's home page offers.
 */
function useOpenTraces(
  page: TraceSource,
  paged: PagedApi | undefined,
  { route, go }: Pick<ReturnType<typeof useRoute>, 'route' | 'go'>,
) {
  const [trace, setTrace] = useState<TraceView | undefined>();
  const model = trace?.model;
  const [listing, setListing] = useState<{ traces?: TraceListing[]; error?: string }>({});
  // What is being read or followed into the model shown, stopped when another model replaces it.
  const reading = useRef<Opened[]>([]);
  const opened = useRef<string | undefined>(undefined);

  /** Shows a source's traces in a fresh model, stopping whatever the previous one was reading. */
  const show = (source: TraceSource, ref?: TraceRef): Opened => {
    for (const handle of reading.current.splice(0)) handle.close();
    const fresh = new TraceModel();
    setTrace(new WholeTrace(fresh));
    const handle = source.open(fresh, ref);
    reading.current.push(handle);
    return handle;
  };

  // The page's own traces: a report's embedded ones, the files `tapedeck view` serves, or the one it pages.
  useEffect(() => {
    if (paged) {
      const pagedTrace = new PagedTrace(paged);
      setTrace(pagedTrace);
      void pagedTrace.start();
      reading.current.push({ ready: Promise.resolve(), close: () => pagedTrace.stop() });
    } else if (page.capabilities.own) show(page);
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

  return { trace, listing, reading, show };
}
