import { clipWidth, displayWidth } from '../../trace/text-width.js';
import { padEnd, visibleWidth } from './color.js';
import { fitText, wrapText } from './wrap.js';

/**
 * One row of the `tapedeck show` timeline fitted to the terminal: the head (time, arrow, what the message is, its
 * id, outcome and latency), then the detail in a column of its own. Only previews are cut: the head's label (a
 * long resource URI) gives way before its id and outcome do, and a detail is cut to the room left. An error's
 * message is never cut: it wraps inside the detail column, or below the row when that column is too narrow.
 */

export type Tone = (text: string) => string;

export interface RowParts {
  /** Time, indentation, arrow, batch and server tags, coloured. */
  prefix: string;
  /** What the message is (method and target), plain: cut when the row is too narrow. */
  label: string;
  labelTone: Tone;
  /** Id, outcome, latency and marks after the label, coloured: never cut. */
  suffix: string;
  /** The detail, plain. */
  detail: string;
  tone: Tone;
  /** The detail must be read whole (an error's message): wrapped, never cut. */
  whole: boolean;
}

/** The label is never cut shorter than this (an ellipsis included). */
const MIN_LABEL = 12;
/** A detail column narrower than this shows no preview at all (a sliver says nothing). */
const MIN_DETAIL = 8;
/** An error wraps inside the detail column when it has this much room, else on lines of its own below the row. */
const MIN_WRAP = 24;

/**
 * Where the detail column starts for a window `width` columns wide: far enough for most heads, near enough that a
 * detail keeps room on an 80-column terminal (the head column is 27 there, 50 from 136 columns up).
 *
 * @example detailColumn(80) // → 38
 */
export function detailColumn(width: number): number {
  const time = 11;
  const head = Math.max(24, Math.min(50, Math.floor((width - time) * 0.4)));
  return time + head;
}

/**
 * The lines of one row at `width` columns; `column` is where details start.
 *
 * @example layoutRow({ prefix: '  +0.001s  → ', label: 'ping', labelTone: String, suffix: ' #1', detail: '', tone: String, whole: false }, 80, 42)
 * // → ['  +0.001s  → ping #1']
 */
export function layoutRow(parts: RowParts, width: number, column: number): string[] {
  const fixed = visibleWidth(parts.prefix) + visibleWidth(parts.suffix);
  const labelRoom = Math.max(MIN_LABEL, width - fixed);
  const label = displayWidth(parts.label) <= labelRoom ? parts.label : clipWidth(parts.label, labelRoom);
  const left = `${parts.prefix}${label === '' ? '' : parts.labelTone(label)}${parts.suffix}`;
  if (parts.detail === '') return [left];
  const start = Math.max(column, visibleWidth(left) + 2);
  const room = width - start;
  if (!parts.whole) {
    if (room < MIN_DETAIL) return [left];
    return [`${padEnd(left, start)}${parts.tone(fitText(parts.detail, room))}`];
  }
  if (room >= MIN_WRAP || displayWidth(parts.detail) <= room) {
    const [first = '', ...rest] = wrapText(parts.detail, Math.max(room, 1));
    const pad = ' '.repeat(start);
    return [`${padEnd(left, start)}${parts.tone(first)}`, ...rest.map((line) => pad + parts.tone(line))];
  }
  // No room beside the head: the message goes below it, indented under the label, as long as it takes.
  const indent = Math.min(visibleWidth(parts.prefix) + 2, Math.floor(width / 2));
  const pad = ' '.repeat(indent);
  return [left, ...wrapText(parts.detail, width - indent).map((line) => pad + parts.tone(line))];
}
