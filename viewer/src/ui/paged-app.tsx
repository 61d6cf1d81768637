import { useEffect, useMemo } from 'preact/hooks';
import { finderOf } from '../data/highlight.js';
import type { PagedApi } from '../data/paged-api.js';
import { PagedTrace } from '../data/paged-trace.js';
import { formatHash, type ViewName } from '../route.js';
import { Detail } from './detail.js';
import { FilterBar } from './filter-bar.js';
import { PagedTimeline } from './paged-timeline.js';
import { Tools } from './tools.js';
import { useRoute, useVersion } from './use-route.js';
import { WaterfallView } from './waterfall.js';

/** The views a paged trace offers; the others need every row in the browser. */
const PAGED_VIEWS: readonly ViewName[] = ['timeline', 'waterfall', 'tools'];
const TITLES: Record<ViewName, string> = {
  timeline: 'Timeline',
  waterfall: 'Waterfall',
  calls: 'Calls',
  tools: 'Tools',
  diff: 'Diff',
  raw: 'Raw',
};

/**
 * The viewer for a trace `tapedeck view` pages (too big for the browser to hold): the timeline, the waterfall and
 * the Tools figures, each asking the server for what it shows, with the same links, search and filters as the
 * viewer of a whole trace (the server runs the search) and the same detail pane. Calls, Diff and Raw need every
 * row in the browser and say so. Its one trace has no close button: nothing can be added beside it (the files a
 * browser holds cannot be merged with rows the server keeps), so closing it would leave an empty page.
 */
export function PagedApp({ api }: { api: PagedApi }) {
  const { route, go, set } = useRoute();
  const trace = useMemo(() => new PagedTrace(api), [api]);
  useEffect(() => {
    void trace.start();
    return () => trace.stop();
  }, [trace]);
  const version = useVersion(trace.model);
  const view = route.view === 'home' ? 'timeline' : route.view;
  useEffect(() => {
    if (route.view === 'home') go({ ...route, view: 'timeline' }, 'replace');
  }, [route.view]);
  useEffect(() => {
    if (view === 'tools' && trace.source && !trace.source.hasStats) void trace.loadStats();
  }, [view, trace.source]);
  const source = trace.source;
  const p = route.params;
  const rows = source ? trace.view(p) : undefined;
  const info = source?.pagedInfo;
  const select = (key: string | undefined) => set({ sel: key });
  const selected = p.sel && source ? source.row(p.sel) : undefined;
  const listed = view === 'timeline' || view === 'waterfall';
  // The server searched; the page marks what matched in the rows shown.
  const find = useMemo(
    () => (rows?.error ? undefined : finderOf(p.q, p.re === '1')),
    [p.q, p.re, rows?.error],
  );
  const detail =
    selected && listed ? (
      <Detail
        model={trace.model}
        row={selected}
        select={select}
        link={() => `${location.href.split('#')[0]}${formatHash(route)}`}
        openRaw={() => go({ ...route, view: 'raw' }, 'push')}
        close={() => select(undefined)}
        find={find}
      />
    ) : null;
  const start = info?.start ?? 0;
  return (
    <div class="app paged">
      <header class="top">
        <a class="brand" href="#/timeline" title="tapedeck">
          tapedeck
        </a>
        <nav class="tabs" aria-label="views">
          {(['timeline', 'waterfall', 'calls', 'tools', 'diff', 'raw'] as const).map((name) => (
            <button
              type="button"
              key={name}
              class={view === name ? 'tab active' : 'tab'}
              aria-current={view === name ? 'page' : undefined}
              disabled={!source}
              title={PAGED_VIEWS.includes(name) ? undefined : 'needs the whole trace in the browser'}
              onClick={() => go({ ...route, view: name }, 'push')}
              data-view={name}
            >
              {TITLES[name]}
            </button>
          ))}
        </nav>
        <div class="sources">
          {info ? (
            <span class="source active" title={`${info.format} · ${info.meta.label}`}>
              {info.name}
            </span>
          ) : null}
          <span class="badge" title="the trace stays on the server; the viewer asks for what it shows">
            paged
          </span>
        </div>
      </header>
      {source && info && rows && listed ? (
        <FilterBar
          params={p}
          set={set}
          tools={info.tools}
          methods={info.methods}
          servers={info.servers}
          error={rows.error}
          shown={rows.count}
          total={info.rows}
          noun="rows"
          transport={false}
          transportShown={false}
        >
          <fieldset class="export" aria-label="export the rows shown">
            <a
              class="button"
              href={trace.exportUrl(p)}
              download
              title="the rows shown as a tapedeck trace (JSONL)"
            >
              Export JSONL
            </a>
          </fieldset>
        </FilterBar>
      ) : null}
      <main class={`view v-${view}${detail ? ' with-detail' : ''}`}>
        {!source || !rows || !info ? (
          <p class="empty">{trace.model.failures[0] ?? 'Opening the trace…'}</p>
        ) : view === 'timeline' && !rows.known ? (
          // A search reads the whole file on the server: seconds for a gigabyte.
          <p class="empty" role="status">
            Searching the trace on the server…
          </p>
        ) : view === 'timeline' ? (
          <>
            <PagedTimeline
              model={trace.model}
              view={rows}
              start={start}
              maxLatency={info.maxLatency}
              selected={p.sel}
              select={select}
              find={find}
            />
            {detail}
          </>
        ) : view === 'waterfall' ? (
          <>
            <WaterfallView
              bars={trace.waterfall(p)}
              zero={start}
              version={version}
              span={p.span}
              setSpan={(span) => set({ span })}
              selected={p.sel}
              select={select}
            />
            {detail}
          </>
        ) : view === 'tools' ? (
          <Tools
            source={source}
            version={version}
            openTool={(tool) => go({ ...route, view: 'timeline', params: { tool } }, 'push')}
            openMethod={(method) => go({ ...route, view: 'timeline', params: { method } }, 'push')}
          />
        ) : (
          <p class="empty paged-note">
            {TITLES[view]} needs every row in the browser, and this trace is served a page at a time. Open it
            whole with <code>tapedeck view --no-paged {info.name}</code>, or use{' '}
            <code>tapedeck {view === 'diff' ? 'diff' : 'show'}</code> in a terminal.
          </p>
        )}
      </main>
      <footer class="status" data-version={version} data-loaded={trace.model.loading ? 'no' : 'yes'}>
        {trace.model.loading ? (
          <span class="loading">
            <progress max={1} value={trace.model.loading.progress} /> {trace.model.loading.text}
          </span>
        ) : (
          <span class="loaded">
            1 trace · {(info?.rows ?? 0).toLocaleString('en')} rows · served a page at a time
          </span>
        )}
        {trace.model.failures.map((f) => (
          <span key={f} class="err">
            {f}
          </span>
        ))}
      </footer>
    </div>
  );
}
