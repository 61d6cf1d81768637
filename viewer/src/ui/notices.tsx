import { useState } from 'preact/hooks';
import type { TraceModel } from '../data/model.js';
import { withoutPaths } from '../data/without-paths.js';

/**
 * What could not be opened, said where it is seen and in one line: how many files or lists failed and which, with
 * a toggle for each message and a button to dismiss it. The traces already open stay.
 */
export function Notices({ model }: { model: TraceModel | undefined }) {
  // How many of this model's failures were dismissed (a model opened afterwards starts with none).
  const [dismissed, setDismissed] = useState<{ model: TraceModel | undefined; count: number }>({
    model: undefined,
    count: 0,
  });
  const [open, setOpen] = useState(false);
  const failures = model?.failures ?? [];
  const shown = failures.slice(dismissed.model === model ? dismissed.count : 0).map(withoutPaths);
  if (shown.length === 0) return null;
  const kept = model && model.sources.length > 0;
  const names = shown.map((text) => text.split(': ')[0]).join(', ');
  const summary =
    shown.length === 1 ? `Could not open ${names}.` : `${shown.length} could not be opened: ${names}.`;
  return (
    <div class="notices" role="alert" data-failures={shown.length}>
      <div class="notice-line">
        <span class="err summary" title={summary}>
          {summary}
          {kept
            ? model.sources.length === 1
              ? ' The open trace is kept.'
              : ' The open traces are kept.'
            : ''}
        </span>
        <button type="button" class="linkish toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide details' : 'Details'}
        </button>
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
      {open ? (
        <ul>
          {shown.map((text, i) => (
            <li key={i} class="err">
              {text}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
