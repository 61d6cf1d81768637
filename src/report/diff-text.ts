import { formatValue } from '../trace/json-diff.js';
import type { Json } from '../trace/types.js';

/** How many differences a case's details list, and how long a value may get there, before they are cut. */
export const DETAIL_LIMITS = { entries: 10, valueLength: 200 } as const;

/** One difference as the details show it: where, and the two sides' values (absent: no value there). */
export interface SideBySide {
  path: string;
  left?: Json | undefined;
  right?: Json | undefined;
}

/**
 * A structural diff as the lines of a case's details: each path, then each side's value under its label, then how
 * many more differences there are — the same shape `tapedeck verify` prints.
 *
 * @example diffText([{ path: '$.result.isError', right: true }], 1, ['recorded', 'live'])
 * // → '$.result.isError\n  recorded absent\n  live     true'
 */
export function diffText(
  entries: readonly SideBySide[],
  total: number,
  labels: readonly [string, string],
): string {
  const width = Math.max(labels[0].length, labels[1].length);
  const lines: string[] = [];
  const shown = entries.slice(0, DETAIL_LIMITS.entries);
  for (const entry of shown) {
    lines.push(entry.path);
    lines.push(`  ${labels[0].padEnd(width)} ${formatValue(entry.left, DETAIL_LIMITS.valueLength)}`);
    lines.push(`  ${labels[1].padEnd(width)} ${formatValue(entry.right, DETAIL_LIMITS.valueLength)}`);
  }
  const more = total - shown.length;
  if (more > 0) lines.push(`… and ${more} more difference${more === 1 ? '' : 's'}`);
  return lines.join('\n');
}

/**
 * `1 difference`, `3 differences`.
 *
 * @example differences(2) // → '2 differences'
 */
export function differences(n: number): string {
  return `${n} difference${n === 1 ? '' : 's'}`;
}
