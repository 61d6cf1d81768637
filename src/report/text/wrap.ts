import { clipWidth, displayWidth, graphemes, graphemeWidth } from '../../trace/text-width.js';
import { stripAnsi, visibleWidth } from './color.js';

/**
 * Fitting text to a width (the terminal's: src/cli/terminal.ts finds it): text wrapped to it by
 * display width (wide characters and emoji take two columns). Renderers wrap what must be read whole (an error's
 * message, a tool name in a table) and cut what is only a preview.
 */

/** The width when output goes to a pipe or a file and `COLUMNS` says nothing (cli/terminal.ts picks the width). */
export const DEFAULT_WIDTH = 80;

/** Where a word longer than a line may break: after a `-`, `/`, `_` or `,` (names, paths, URIs, JSON). */
const PART = /[^\-/_,]*(?:[-/_,]+|$)/gu;

/**
 * Text wrapped to lines of at most `width` columns: at spaces; a word longer than a line after `-`, `/`, `_` or
 * `,`, and between characters when even a part of it is too long. Runs of white space become one space unless
 * `fold` is false (spaces that line columns up); nothing is lost but the spaces where a line breaks.
 *
 * @example wrapText('tool trigger-long-running-operation', 22) // → ['tool', 'trigger-long-running-', 'operation']
 * @example wrapText('日本語のテキスト', 6) // → ['日本語', 'のテキ', 'スト']
 */
export function wrapText(text: string, width: number, { fold = true }: { fold?: boolean } = {}): string[] {
  const flat = fold ? text.replace(/\s+/g, ' ').trim() : text.replace(/[\r\n\t]/g, ' ').trimEnd();
  if (displayWidth(flat) <= width) return [flat];
  const lines: string[] = [];
  let line = '';
  let used = 0;
  const flush = () => {
    lines.push(line.trimEnd());
    line = '';
    used = 0;
  };
  const add = (piece: string, w: number) => {
    line += piece;
    used += w;
  };
  // Words with the spaces before them, so spaces inside a line are kept as they were.
  for (const [, space = '', word = ''] of flat.matchAll(/( *)([^ ]+)/g)) {
    const w = displayWidth(word);
    const gap = used === 0 ? (lines.length === 0 ? space : '') : space;
    if (used + gap.length + w <= width) {
      add(gap + word, gap.length + w);
      continue;
    }
    if (used > 0) flush();
    if (w <= width) {
      add(word, w);
      continue;
    }
    // Longer than a whole line: break after separators, and between characters where a part is too long.
    for (const part of word.match(PART) ?? []) {
      const pw = displayWidth(part);
      if (used > 0 && used + pw > width) flush();
      if (pw <= width) {
        add(part, pw);
        continue;
      }
      for (const grapheme of graphemes(part)) {
        const gw = graphemeWidth(grapheme);
        if (used > 0 && used + gw > width) flush();
        add(grapheme, gw);
      }
    }
  }
  if (line !== '') flush();
  return lines;
}

/**
 * Text cut to `width` columns with an ellipsis, after folding white space (what a preview shows).
 *
 * @example fitText('a\n  long   text', 8) // → 'a long…'
 */
export function fitText(text: string, width: number): string {
  // Most previews are folded already (describe-detail.ts): skip the replace for them, it runs for every row.
  const folded = /\s\s|[^\S ]/.test(text) ? text.replace(/\s+/g, ' ') : text;
  return clipWidth(folded.trim(), width);
}

/**
 * One report line made to fit: as it is when it does, else wrapped, its continuation lines indented `hang` columns
 * past the line's own indentation (a wrapped line loses its colours).
 *
 * @example fitLine('  server    everything 2.0.0 "Everything" · protocol 2025-11-25', 40, 10)
 * // → ['  server    everything 2.0.0 "Everything" ·', '            protocol 2025-11-25']
 */
export function fitLine(line: string, width: number, hang = 2): string[] {
  if (visibleWidth(line) <= width) return [line];
  const plain = stripAnsi(line).trimEnd();
  const lead = /^ */.exec(plain)?.[0] ?? '';
  const body = plain.slice(lead.length);
  const head = wrapText(body, width - lead.length, { fold: false })[0] ?? '';
  const rest = body.slice(head.length).trim();
  const pad = ' '.repeat(Math.min(lead.length + hang, Math.floor(width / 2)));
  const more = rest === '' ? [] : wrapText(rest, width - pad.length).map((text) => pad + text);
  return [lead + head, ...more];
}
