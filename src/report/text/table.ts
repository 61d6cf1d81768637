import { padEnd, padStart, splitColour, stripAnsi, visibleWidth } from './color.js';
import { wrapText } from './wrap.js';

/**
 * Plain-text tables for terminal reports: columns sized to their widest cell, numbers right-aligned. Given a width,
 * a table that would not fit narrows its text columns (the widest first) and wraps their cells onto more lines —
 * never cutting a name; when even that cannot fit, each row becomes a short block of `header value` pairs.
 */

export interface Column {
  header: string;
  align?: 'left' | 'right';
  /**
   * The column may narrow and wrap its cells when the table is too wide (names, paths, descriptions). When no
   * column says so, every left-aligned one may.
   */
  wrap?: boolean;
}

export interface TableOptions {
  /** Put before every line (the reports indent their tables under a heading). */
  indent?: string;
  /** Columns the table must fit (lines are never longer); unlimited when absent. */
  width?: number | undefined;
}

/** Two spaces between columns; one between two columns of numbers when the table must save room. */
const GAP = 2;
/** A text column is never narrowed below this, nor below its header. */
const MIN_COLUMN = 8;

/**
 * Renders rows under a header, two spaces between columns, no trailing spaces. Cells may carry colour codes (one
 * coloured run per cell keeps its colour when wrapped).
 *
 * @example
 * renderTable([{ header: 'tool' }, { header: 'calls', align: 'right' }], [['echo', '3']])
 * // → 'tool  calls\necho      3\n'
 * @example renderTable(columns, rows, { indent: '  ', width: 80 })
 */
export function renderTable(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  options: TableOptions = {},
): string {
  const indent = options.indent ?? '';
  const widths = columns.map((column, i) =>
    Math.max(visibleWidth(column.header), ...rows.map((row) => visibleWidth(row[i] ?? ''))),
  );
  const limit = options.width ?? Number.POSITIVE_INFINITY;
  const room = limit - visibleWidth(indent);
  const gaps = columns.slice(1).map(() => GAP);
  // Too wide: numbers side by side still read apart with one space, which may spare a name its wrapping.
  if (sum(widths) + sum(gaps) > room)
    for (let i = 1; i < columns.length; i++)
      if (columns[i]!.align === 'right' && columns[i - 1]!.align === 'right') gaps[i - 1] = 1;
  if (!narrow(columns, widths, room - sum(gaps))) return stacked(columns, rows, indent, limit);
  const line = (cells: readonly string[]) =>
    indent +
    columns
      .map((column, i) => {
        const cell = cells[i] ?? '';
        const width = widths[i] ?? 0;
        const gap = i === 0 ? '' : ' '.repeat(gaps[i - 1]!);
        return gap + (column.align === 'right' ? padStart(cell, width) : padEnd(cell, width));
      })
      .join('')
      .trimEnd();
  const out = [line(columns.map((c) => c.header))];
  for (const row of rows) {
    const wrapped = columns.map((_, i) => wrapCell(row[i] ?? '', widths[i] ?? 0));
    const height = Math.max(...wrapped.map((cell) => cell.length));
    for (let k = 0; k < height; k++) out.push(line(wrapped.map((cell) => cell[k] ?? '')));
  }
  return `${out.join('\n')}\n`;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** Narrows the text columns, widest first, until they fit `room`; false when they cannot. */
function narrow(columns: readonly Column[], widths: number[], room: number): boolean {
  const total = () => sum(widths);
  // Numbers and ids keep their width; a text column keeps its header whole and at least MIN_COLUMN.
  const chosen = columns.some((column) => column.wrap === true);
  const floor = columns.map((column, i) =>
    column.align === 'right' || (chosen && column.wrap !== true)
      ? widths[i]!
      : Math.max(MIN_COLUMN, visibleWidth(column.header)),
  );
  let excess = total() - room;
  while (excess > 0) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (widths[i]! > floor[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    }
    if (widest < 0) return false;
    widths[widest]!--;
    excess--;
  }
  return true;
}

/** A cell's lines at `width` columns, its colour kept on each. */
function wrapCell(cell: string, width: number): string[] {
  if (visibleWidth(cell) <= width) return [cell];
  const { open, text, close } = splitColour(cell);
  return wrapText(text, width).map((line) => `${open}${line}${close}`);
}

/** Rows as blocks, for widths no table fits: the first cell, then the other cells as `header value` pairs. */
function stacked(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  indent: string,
  width: number,
): string {
  const room = Math.max(1, width - visibleWidth(indent));
  const out: string[] = [];
  for (const row of rows) {
    for (const line of wrapText(stripAnsi(row[0] ?? ''), room)) out.push(indent + line);
    const pairs = columns.slice(1).map((column, i) => `${column.header} ${stripAnsi(row[i + 1] ?? '')}`);
    // Pairs stay together on a line (a header is not parted from its value) unless one alone is too long.
    const lines: string[] = [];
    let line = '';
    for (const pair of pairs) {
      // Room for the ` ·` that ends a line the next pair does not fit on.
      if (line !== '' && visibleWidth(`${line} · ${pair} ·`) > room - 2) {
        lines.push(`${line} ·`);
        line = '';
      }
      line = line === '' ? pair : `${line} · ${pair}`;
    }
    if (line !== '') lines.push(line);
    for (const text of lines)
      for (const part of wrapText(text, Math.max(1, room - 2))) out.push(`${indent}  ${part}`);
  }
  return `${out.join('\n')}\n`;
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
