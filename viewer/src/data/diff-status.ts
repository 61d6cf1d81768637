import type { AlignedItem, ExchangeOutcome } from 'mcp-tapedeck/trace';

/** What became of a request from one trace to the next, as the diff view's status column says it. */
export type DiffStatus = 'fixed' | 'broke' | AlignedItem['kind'];

/** Outcomes that count as a failed call. */
const FAILED: ReadonlySet<ExchangeOutcome> = new Set(['error', 'tool_error', 'unanswered']);

/**
 * A request answered in both traces that failed in one and succeeded in the other is `fixed` (failed in a) or
 * `broke` (failed in b); anything else keeps its alignment's kind (same, changed, added, removed).
 *
 * @example diffStatus({ kind: 'changed', a: { outcome: 'error' }, b: { outcome: 'ok' } }) // → 'fixed'
 */
export function diffStatus(
  item: Pick<AlignedItem, 'kind'> & {
    a?: { outcome: ExchangeOutcome } | undefined;
    b?: { outcome: ExchangeOutcome } | undefined;
  },
): DiffStatus {
  const a = item.a?.outcome;
  const b = item.b?.outcome;
  if (a !== undefined && b !== undefined && (item.kind === 'changed' || item.kind === 'same')) {
    if (FAILED.has(a) && b === 'ok') return 'fixed';
    if (a === 'ok' && FAILED.has(b)) return 'broke';
  }
  return item.kind;
}
