import { padEnd, padStart, visibleWidth } from './color.js';

/** Plain-text tables for terminal reports: columns sized to their widest cell, numbers right-aligned. */

export interface Column {
  header: string;
  align?: 'left' | 'right';
}

/**
 * Renders rows under a header, two spaces between columns, no trailing spaces. Cells may carry colour codes.
 *
 * @example
 * renderTable([{ header: 'tool' }, { header: 'calls', align: 'right' }], [['echo', '3']])
 * // → 'tool  calls\necho      3\n'
 */
export function renderTable(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  indent = '',
): string {
  const widths = columns.map((column, i) =>
    Math.max(visibleWidth(column.header), ...rows.map((row) => visibleWidth(row[i] ?? ''))),
  );
  const line = (cells: readonly string[]) =>
    indent +
    columns
      .map((column, i) => {
        const cell = cells[i] ?? '';
        const width = widths[i] ?? 0;
        return column.align === 'right' ? padStart(cell, width) : padEnd(cell, width);
      })
      .join('  ')
      .trimEnd();
  return `${[line(columns.map((c) => c.header)), ...rows.map(line)].join('\n')}\n`;
}

/**
 * Formats a duration for a report line.
 *
 * @example formatDuration(14142) // → '14.142s'   formatDuration(3_723_000) // → '1h02m03s'
 */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(3)}s`;
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(2, '0');
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}h${mm}m${ss}s` : `${m}m${ss}s`;
}
