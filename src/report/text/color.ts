import { displayWidth } from '../../trace/text-width.js';

/**
 * Terminal colours, for a renderer told to colour. The command line decides (src/cli/terminal.ts): off unless the
 * output is a TTY, and always off when NO_COLOR is set to a non-empty value (https://no-color.org), so piped
 * output and files never carry escape codes.
 */

export interface Palette {
  enabled: boolean;
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  blue(text: string): string;
  magenta(text: string): string;
  cyan(text: string): string;
}

function sgr(open: number, close: number): (text: string) => string {
  return (text) => (text === '' ? text : `\u001b[${open}m${text}\u001b[${close}m`);
}

const plain = (text: string): string => text;

/**
 * A palette of colour functions; with `enabled = false` every function returns its input unchanged.
 *
 * @example palette(true).red('error') // → '\u001b[31merror\u001b[39m'
 */
export function palette(enabled: boolean): Palette {
  if (!enabled) {
    return {
      enabled,
      dim: plain,
      bold: plain,
      red: plain,
      green: plain,
      yellow: plain,
      blue: plain,
      magenta: plain,
      cyan: plain,
    };
  }
  return {
    enabled,
    dim: sgr(2, 22),
    bold: sgr(1, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    blue: sgr(34, 39),
    magenta: sgr(35, 39),
    cyan: sgr(36, 39),
  };
}

/** Strips SGR colour codes, e.g. to measure the printed width of a cell. @example stripAnsi('\u001b[2mx\u001b[22m') // → 'x' */
export function stripAnsi(text: string): string {
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

/**
 * Printed width of a string: terminal columns without colour codes, wide characters and emoji counted as two.
 *
 * @example visibleWidth('→ a') // → 3
 * @example visibleWidth(palette(true).red('日本')) // → 4
 */
export function visibleWidth(text: string): number {
  return displayWidth(text.includes('\u001b') ? stripAnsi(text) : text);
}

/**
 * A cell that is one coloured run (`\u001b[31mtext\u001b[39m`) as its codes and its text, so the text can be cut or
 * wrapped and coloured again; any other text comes back as plain text with no codes.
 *
 * @example splitColour(palette(true).red('x')) // → { open: '\u001b[31m', text: 'x', close: '\u001b[39m' }
 */
export function splitColour(text: string): { open: string; text: string; close: string } {
  const run = /^(\u001b\[[0-9;]*m)([^\u001b]*)(\u001b\[[0-9;]*m)$/.exec(text);
  if (run) return { open: run[1]!, text: run[2]!, close: run[3]! };
  return { open: '', text: stripAnsi(text), close: '' };
}

/** Pads to a printed width, ignoring colour codes. @example padEnd(palette(true).red('ab'), 4) */
export function padEnd(text: string, width: number): string {
  const visible = visibleWidth(text);
  return visible >= width ? text : text + ' '.repeat(width - visible);
}

/** Left-pads to a printed width, ignoring colour codes. @example padStart('7', 3) // → '  7' */
export function padStart(text: string, width: number): string {
  const visible = visibleWidth(text);
  return visible >= width ? text : ' '.repeat(width - visible) + text;
}
