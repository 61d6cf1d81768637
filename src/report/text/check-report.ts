import { spread, type ToolSpread } from '../../gates/check/evaluate.js';
import type { CheckedRun } from '../from-check.js';
import { palette } from './color.js';

/**
 * What `tapedeck check` prints: one row per run (pass or the rules it broke, its calls in order), the pass rate,
 * and per tool how many runs called it and at which position.
 *
 * @example renderCheckText(checked, false)
 */
export function renderCheckText(checked: readonly CheckedRun[], color: boolean): string {
  const p = palette(color);
  const lines: string[] = [];
  for (const { run, violations } of checked) {
    const status = violations.length === 0 ? p.green('pass') : p.red('FAIL');
    const calls = run.calls.map((c) => c.tool).join(' → ') || '(no tool calls)';
    lines.push(`${status}  ${run.file}  ${p.dim(`${run.durationMs} ms`)}  ${calls}`);
    for (const v of violations)
      lines.push(`      ${p.red(v.rule)}: ${v.message}${v.line === undefined ? '' : ` (line ${v.line})`}`);
  }
  const passed = checked.filter((c) => c.violations.length === 0).length;
  lines.push(
    `${passed}/${checked.length} runs passed (${Math.round((100 * passed) / Math.max(1, checked.length))}%)`,
  );
  if (checked.length > 1) {
    lines.push('tool calls across runs:');
    const rows = spread(checked.map((c) => c.run));
    const width = Math.max(4, ...rows.map((r) => r.tool.length));
    for (const row of rows)
      lines.push(`  ${row.tool.padEnd(width)}  ${row.runs}/${checked.length} runs  ${positions(row)}`);
  }
  return `${lines.join('\n')}\n`;
}

function positions(row: ToolSpread): string {
  const counts = new Map<number, number>();
  for (const at of row.positions) counts.set(at, (counts.get(at) ?? 0) + 1);
  return `position ${[...counts.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([at, n]) => `#${at}×${n}`)
    .join(' ')}`;
}
