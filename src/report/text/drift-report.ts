import type { DriftChange, DriftFailOn } from '../../gates/drift/classes.js';
import { CHANGE_CLASSES, driftFails } from '../../gates/drift/classes.js';
import { beforeAfter } from '../from-drift.js';
import { palette } from './color.js';

/**
 * What `tapedeck drift` prints: one line per change — class, item, JSON path, before → after — worst first, then
 * a count per class.
 *
 * @example renderDriftText(changes, 'breaking', false)
 */
export function renderDriftText(
  changes: readonly DriftChange[],
  failOn: DriftFailOn,
  color: boolean,
): string {
  const p = palette(color);
  const paint = { breaking: p.red, risky: p.yellow, additive: p.green, cosmetic: p.dim } as const;
  if (changes.length === 0) return `${p.green('no drift: the definitions are the same')}\n`;
  const sorted = [...changes].sort(
    (a, b) => CHANGE_CLASSES.indexOf(a.class) - CHANGE_CLASSES.indexOf(b.class),
  );
  const lines = sorted.map(
    (c) =>
      `${paint[c.class](c.class.padEnd(8))}  ${c.kind}[${c.item}] ${p.dim(c.path)}  ${c.message}${beforeAfter(c)}`,
  );
  const counts = CHANGE_CLASSES.map((cls) => `${changes.filter((c) => c.class === cls).length} ${cls}`).join(
    ', ',
  );
  const failing = changes.filter((c) => driftFails(c, failOn)).length;
  lines.push(
    `${changes.length} change${changes.length === 1 ? '' : 's'}: ${counts}; ${failing} at or above --fail-on ${failOn}`,
  );
  return `${lines.join('\n')}\n`;
}
