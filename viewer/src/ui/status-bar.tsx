import type { ComponentChild } from 'preact';
import { useState } from 'preact/hooks';
import type { TraceModel } from '../data/model.js';

/** What the view shows: `shown` of `total` rows (or calls), after search and filters. */
export interface ShownCount {
  shown: number;
  total: number;
  noun: 'rows' | 'calls';
  /** `shown` is only what was found so far: the rest is still being counted. */
  counting?: boolean | undefined;
}

/** How a count of the list on screen reads: "12 rows", "3 of 12 rows", "200+ of 12 rows" while counting. */
export function shownText({ shown, total, noun, counting }: ShownCount): string {
  if (counting) return `${shown}+ of ${total} ${noun}`;
  return shown === total ? `${total} ${noun}` : `${shown} of ${total} ${noun}`;
}

export interface StatusBarProps {
  model: TraceModel | undefined;
  version: number;
  /** The list on screen, when the view has one; else every row of the open traces is counted. */
  count?: ShownCount | undefined;
  /** Said after the count (how the rows are held). */
  note?: string | undefined;
  /** More to show on the right (the error steps). */
  children?: ComponentChild;
}

/** Loading progress, what the view shows, live connection state, and what the reader noticed about the files. */
export function StatusBar({ model, version, count, note, children }: StatusBarProps) {
  const [open, setOpen] = useState(false);
  if (!model) return null;
  const live = model.following();
  const diagnostics = model.sources.flatMap((s) => s.diagnostics);
  const total = model.sources.reduce((n, s) => n + s.rows.length, 0);
  const shownCount: ShownCount = count ?? { shown: total, total, noun: 'rows' };
  const { shown, total: of } = shownCount;
  return (
    <footer class="status" data-version={version} data-loaded={model.loading ? 'no' : 'yes'}>
      {model.loading ? (
        <span class="loading">
          <progress max={1} value={model.loading.progress} /> {model.loading.text}
        </span>
      ) : (
        <span
          class="loaded"
          data-shown={shown}
          data-total={of}
          data-counting={shownCount.counting ? 'yes' : undefined}
        >
          {model.sources.length} {model.sources.length === 1 ? 'trace' : 'traces'} · {shownText(shownCount)}
          {note ? ` · ${note}` : ''}
        </span>
      )}
      {children}
      {live ? (
        <span class={`live live-${live.status}`} data-live={live.status} data-dropped={live.dropped}>
          {live.status === 'live' ? '● live' : live.status}
          {live.connections > 1 ? ` · reconnected ${live.connections - 1}×` : ''}
          {live.dropped > 0 ? ` · ${live.dropped} lines dropped by the collector (reload to fetch them)` : ''}
          {live.detail ? ` · ${live.detail}` : ''}
        </span>
      ) : null}
      {diagnostics.length > 0 ? (
        <button type="button" class="linkish" onClick={() => setOpen(!open)}>
          {diagnostics.length} {diagnostics.length === 1 ? 'note' : 'notes'} from the reader
        </button>
      ) : null}
      {open ? (
        <ul class="diagnostics">
          {diagnostics.map((d, i) => (
            <li key={i} class={d.severity === 'error' ? 'err' : ''}>
              {d.message}
            </li>
          ))}
        </ul>
      ) : null}
    </footer>
  );
}
