import { useState } from 'preact/hooks';
import type { TraceModel } from '../data/model.js';

/**
 * What could not be opened, said where it is seen: a file that is not a trace, a list that could not be read. The
 * traces already open stay; each notice can be dismissed.
 */
export function Notices({ model }: { model: TraceModel | undefined }) {
  // How many of this model's failures were dismissed (a model opened afterwards starts with none).
  const [dismissed, setDismissed] = useState<{ model: TraceModel | undefined; count: number }>({
    model: undefined,
    count: 0,
  });
  const failures = model?.failures ?? [];
  const shown = failures.slice(dismissed.model === model ? dismissed.count : 0);
  if (shown.length === 0) return null;
  const kept = model && model.sources.length > 0;
  return (
    <div class="notices" role="alert">
      <ul>
        {shown.map((text, i) => (
          <li key={i} class="err">
            {text}
          </li>
        ))}
      </ul>
      {kept ? (
        <span class="muted">
          {model.sources.length === 1 ? 'The open trace is kept.' : 'The open traces are kept.'}
        </span>
      ) : null}
      <button
        type="button"
        class="close"
        aria-label="dismiss"
        title="Dismiss"
        onClick={() => setDismissed({ model, count: failures.length })}
      >
        ×
      </button>
    </div>
  );
}
