import type { TraceModel } from '../data/model.js';
import { type Route, VIEWS, type ViewName } from '../route.js';
import type { LocalFile } from '../source/local.js';
import type { TraceSource } from '../source/trace-source.js';
import { SOURCE_HUES } from './timeline.js';

export interface HeaderProps {
  model: TraceModel | undefined;
  route: Route;
  /** The page's source: whether it has a home screen, whether it lets the user open files. */
  page: TraceSource;
  counts: { rows: number; calls: number };
  go: (route: Route, how?: 'push' | 'replace') => void;
  /** Add trace files to the ones open (or open them, when none are). */
  openFiles: (files: ArrayLike<LocalFile>) => void;
}

const TITLES: Record<ViewName, string> = {
  timeline: 'Timeline',
  waterfall: 'Waterfall',
  calls: 'Calls',
  tools: 'Tools',
  diff: 'Diff',
  raw: 'Raw',
};

/** The title bar: the open traces, the views as tabs, and a way to add other trace files. */
export function Header({ model, route, page, counts, go, openFiles }: HeaderProps) {
  const sources = model?.sources ?? [];
  const live = model?.following();
  const src = Number(route.params.src ?? 0) || 0;
  const perSource = route.view === 'tools' || route.view === 'raw';
  return (
    <header class="top">
      <a class="brand" href={page.capabilities.own ? '#/timeline' : '#/'} title="tapedeck">
        tapedeck
      </a>
      <nav class="tabs" aria-label="views">
        {VIEWS.map((name) => (
          <button
            type="button"
            key={name}
            class={route.view === name ? 'tab active' : 'tab'}
            aria-current={route.view === name ? 'page' : undefined}
            disabled={!model}
            onClick={() => go({ ...route, view: name }, 'push')}
            data-view={name}
          >
            {TITLES[name]}
            {name === 'calls' && model ? <span class="n">{counts.calls}</span> : null}
            {name === 'diff' && sources.length >= 2 ? (
              <span class="n" title="two traces are open: compare them">
                A↔B
              </span>
            ) : null}
          </button>
        ))}
      </nav>
      <div class={`sources${sources.length > 1 ? ' many' : ''}`}>
        {sources.map((s) => (
          <button
            type="button"
            key={s.index}
            class={`source${perSource && s.index === src ? ' active' : ''}`}
            title={`${s.info.format} · ${s.info.meta.label}`}
            onClick={() => go({ ...route, params: { ...route.params, src: String(s.index) } }, 'replace')}
          >
            {sources.length > 1 ? (
              <span
                class="dot"
                style={{ background: `hsl(${SOURCE_HUES[s.index % SOURCE_HUES.length]} 70% 50%)` }}
              />
            ) : null}
            {s.info.name}
          </button>
        ))}
        {live ? <span class={`badge live-${live.status}`}>{live.status}</span> : null}
      </div>
      {!page.capabilities.openFiles ? (
        <span class="muted report-tag">{page.kind}</span>
      ) : (
        <label class="button open" title="Add trace files beside the open ones (to merge or compare them)">
          {model && sources.length > 0 ? 'Add…' : 'Open…'}
          <input
            type="file"
            multiple
            aria-label={model && sources.length > 0 ? 'add trace files' : 'open trace files'}
            onChange={(e) => {
              const files = (e.currentTarget as HTMLInputElement).files;
              if (files && files.length > 0) openFiles(files);
            }}
          />
        </label>
      )}
    </header>
  );
}
