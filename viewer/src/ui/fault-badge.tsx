import type { FaultMark } from '../data/faults.js';

/**
 * The mark on a call an injected fault spoiled: what the client got, the rules in the tooltip.
 *
 * @example <FaultBadge marks={marks.get(row.exchange!)} />
 */
export function FaultBadge({ marks }: { marks: readonly FaultMark[] | undefined }) {
  if (marks === undefined || marks.length === 0) return null;
  const title = `Injected fault — the client got this instead of the recorded answer: ${marks.map((m) => m.rule).join(', ')}`;
  return (
    <span class="fault-badge" title={title}>
      ⚡ {marks.map((m) => m.label).join(', ')}
    </span>
  );
}
