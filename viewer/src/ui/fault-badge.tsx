import type { FaultMark } from '../data/faults.js';

/**
 * The mark on a call an injected fault spoiled: what the client got, the rules in the tooltip. The bolt is drawn
 * (inline SVG), not a character, so a page without an emoji font shows it too.
 *
 * @example <FaultBadge marks={marks.get(row.exchange!)} />
 */
export function FaultBadge({ marks }: { marks: readonly FaultMark[] | undefined }) {
  if (marks === undefined || marks.length === 0) return null;
  const title = `Injected fault — the client got this instead of the recorded answer: ${marks.map((m) => m.rule).join(', ')}`;
  return (
    <span class="fault-badge" title={title}>
      <svg class="mark-icon" viewBox="0 0 10 12" width="8" height="10" aria-hidden="true">
        <path d="M6 0 0 7h4l-1 5 7-8H6z" fill="currentColor" />
      </svg>{' '}
      {marks.map((m) => m.label).join(', ')}
    </span>
  );
}
