import { isLlmSource } from '../data/agent-run.js';
import type { TraceModel } from '../data/model.js';
import { type Route, VIEWS, type ViewName } from '../route.js';
import type { LocalFile } from '../source/local.js';
import type { TraceSource } from '../source/trace-source.js';
import { SOURCE_HUES } from './timeline.js';

export interface HeaderProps {
  model: TraceModel | undefined;
  /** The views the open trace can show (a paged trace's others need every row in the browser); all when unset. */
  views?: readonly ViewName[] | undefined;
  route: Route;
  /** The page's source: whether it has a home screen, whether it lets the user open files. */
  page: TraceSource;
  counts: { rows: number; calls: number };
  go: (route: Route, how?: 'push' | 'replace') => void;
  /** Add trace files to the ones open (or open them, when none are). */
  openFiles: (files: ArrayLike<LocalFile>) => void;
  /** Close an open trace (by index), one TraceModel.closeBlock lets go. */
  closeTrace: (index: number) => void;
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
 * The title bar: the open traces (each with a button to close it while others are open), the views as tabs, and a
 * way to add other trace files.
 */
export function Header({ model, views, route, page, counts, go, openFiles, closeTrace }: HeaderProps) {
  // The Agent tab is there while an LLM trace is open (the model calls of a run beside its MCP traces).
  const hasAgent = model?.sources.some(isLlmSource) ?? false;
  const paged = views !== undefined && views.length < VIEWS.length;
  const sources = model?.sources ?? [];
  const live = model?.following();
  // The trace the Tools and Raw views show: the one the link names, else the first open.
  const shown = (model?.source(Number(route.params.src ?? 0) || 0) ?? sources[0])?.index;
  const perSource = route.view === 'tools' || route.view === 'raw';
  return (
    <header class="top">
      <a class="brand" href={page.capabilities.own || paged ? '#/timeline' : '#/'} title="tapedeck">
        tapedeck
      </a>
      <nav class="tabs" aria-label="views">
        {VIEWS.filter((name) => name !== 'agent' || hasAgent).map((name) => (
          <button
            type="button"
            key={name}
            class={route.view === name ? 'tab active' : 'tab'}
            aria-current={route.view === name ? 'page' : undefined}
            disabled={!model || (paged && model.sources.length === 0)}
            title={paged && !views.includes(name) ? 'needs the whole trace in the browser' : undefined}
            onClick={() => go({ ...route, view: name }, 'push')}
            data-view={name}
          >
            {TITLES[name]}
            {name === 'calls' && model && !paged ? <span class="n">{counts.calls}</span> : null}
            {name === 'diff' && sources.length >= 2 ? (
              <span class="n" title="two traces are open: compare them">
                A↔B
              </span>
            ) : null}
          </button>
        ))}
      </nav>
      <div class={`sources${sources.length > 1 ? ' many' : ''}`}>
        {sources.map((s) => {
          const blocked = model?.closeBlock(s.index);
          return (
            <span
              key={s.index}
              class={`chip${perSource && s.index === shown ? ' active' : ''}`}
              data-source={s.index}
            >
              <button
                type="button"
                class={`source${perSource && s.index === shown ? ' active' : ''}`}
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
              {sources.length < 2 ? null : (
                // A trace that stays keeps a focusable button that says why (a disabled one could not be reached
                // to read its reason); the last open trace has none, there being nothing to close it to.
                <button
                  type="button"
                  class="source-close"
                  aria-label={`Close ${s.info.name}`}
                  aria-disabled={blocked === undefined ? undefined : 'true'}
                  title={blocked === undefined ? `Close ${s.info.name}` : `Cannot close: ${blocked}`}
                  onClick={() => {
                    if (blocked !== undefined) return;
                    const at = sources.indexOf(s);
                    const next = sources[at + 1] ?? sources[at - 1];
                    closeTrace(s.index);
                    if (next) focusAfterClose(next.index);
                  }}
                >
                  ×
                </button>
              )}
            </span>
          );
        })}
        {live ? <span class={`badge live-${live.status}`}>{live.status}</span> : null}
        {paged ? (
          <span class="badge" title="the trace stays on the server; the viewer asks for what it shows">
            paged
          </span>
        ) : null}
      </div>
      {paged ? null : !page.capabilities.openFiles ? (
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

/**
 * The keyboard stays in the list of traces once one closes: on its neighbour's close button, or its name when it
 * is the last one open; where the traces are not shown (a phone with one trace), on the list of rows.
 */
function focusAfterClose(neighbour: number): void {
  // After the header has drawn the traces left.
  setTimeout(() => {
    const chip = document.querySelector(`.top .chip[data-source="${neighbour}"]`);
    const targets = [
      chip?.querySelector<HTMLElement>('.source-close'),
      chip?.querySelector<HTMLElement>('.source'),
      document.querySelector<HTMLElement>('main .vlist, main .tools, main .diff, main .raw'),
    ];
    for (const target of targets) {
      if (!target || target.getClientRects().length === 0) continue;
      target.focus();
      return;
    }
  }, 0);
}
