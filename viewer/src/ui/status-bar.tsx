import { useState } from 'preact/hooks';
import type { TraceModel } from '../data/model.js';

/** Loading progress, live connection state, dropped lines, and what the reader noticed about the files. */
export function StatusBar({ model, version }: { model: TraceModel | undefined; version: number }) {
  const [open, setOpen] = useState(false);
  if (!model) return null;
  const live = model.following();
  const diagnostics = model.sources.flatMap((s) => s.diagnostics);
  const total = model.sources.reduce((n, s) => n + s.rows.length, 0);
  return (
    <footer class="status" data-version={version} data-loaded={model.loading ? 'no' : 'yes'}>
      {model.loading ? (
        <span class="loading">
          <progress max={1} value={model.loading.progress} /> {model.loading.text}
        </span>
      ) : (
        <span class="loaded">
          {model.sources.length} {model.sources.length === 1 ? 'trace' : 'traces'} · {total} rows
        </span>
      )}
      {live ? (
        <span class={`live live-${live.status}`} data-live={live.status} data-dropped={live.dropped}>
          {live.status === 'live' ? '● live' : live.status}
          {live.connections > 1 ? ` · reconnected ${live.connections - 1}×` : ''}
          {live.dropped > 0 ? ` · ${live.dropped} lines dropped by the collector (reload to fetch them)` : ''}
          {live.detail ? ` · ${live.detail}` : ''}
        </span>
      ) : null}
      {model.failures.map((f) => (
        <span key={f} class="err">
          {f}
        </span>
      ))}
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
