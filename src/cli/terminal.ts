import { DEFAULT_WIDTH } from '../report/text/wrap.js';

/**
 * What the command line reads off the terminal it writes to: whether to colour (a TTY, and no NO_COLOR) and how
 * wide to render (the window, else `COLUMNS`, else 80). The renderers in src/report/text take both as options.
 */

/**
 * Decides whether to colour output written to `stream`.
 *
 * @example useColor(process.stdout, process.env) // → false when piped or NO_COLOR=1
 */
export function useColor(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  if (env.NO_COLOR) return false;
  return stream.isTTY === true;
}

/** Narrower than this, rows are laid out as if the window had this many columns. */
export const MIN_WIDTH = 40;
/**
 * The width output should fit: a terminal's own columns, else a positive `COLUMNS` (what shells export, and what a
 * user sets to widen piped output), else 80; never below MIN_WIDTH.
 *
 * @example terminalWidth({ isTTY: true, columns: 120 }, {}) // → 120
 * @example terminalWidth({}, { COLUMNS: '200' }) // → 200
 */
export function terminalWidth(
  stream: { isTTY?: boolean; columns?: number },
  env: Readonly<Record<string, string | undefined>>,
): number {
  const tty = stream.isTTY === true && typeof stream.columns === 'number' && stream.columns > 0;
  const fromEnv = Number(env.COLUMNS);
  const width = tty
    ? (stream.columns as number)
    : Number.isInteger(fromEnv) && fromEnv > 0
      ? fromEnv
      : DEFAULT_WIDTH;
  return Math.max(MIN_WIDTH, width);
}
