import { graphemes, graphemeWidth } from './text-width.js';

/**
 * Two long values side by side, cut so the change shows: both excerpts start at the same character and put the
 * first one that differs in the middle, with `…` where text was left out. Cutting both at the same prefix instead
 * would make two values that differ late look equal. The terminal's `tapedeck diff` and the web viewer's diff both
 * show changed values through it.
 */

export interface DiffExcerpt {
  /** Side a's excerpt: `…` where text before or after was left out. */
  a: string;
  /** Side b's excerpt, from the same starting character as a's. */
  b: string;
  /**
   * Where the excerpts first differ, as an index into both strings (they are equal before it, leading ellipsis
   * included); at the end of the shorter one when one is the start of the other; -1 when the sides are equal.
   */
  at: number;
  /**
   * Where the changed part ends in excerpt a: from `at` to here a differs from b, after it the two sides end
   * alike (or the excerpt stops). `at` itself when a only lacks what b adds; -1 when the sides are equal.
   */
  endA: number;
  /** The same for excerpt b. */
  endB: number;
}

export interface ExcerptOptions {
  /**
   * How length is counted: `columns` (default) as a terminal or a monospace font lays text out, wide characters
   * and emoji as 2, combining marks as 0; `chars` one per character (code point).
   */
  measure?: 'columns' | 'chars';
}

/** Code units of context taken on each side of the difference, per column asked for (a grapheme is rarely longer). */
const UNITS_PER_COLUMN = 8;

/**
 * The index (UTF-16) of the first code unit where two strings differ; the shorter length when one is the start of
 * the other; -1 when they are equal.
 *
 * @example firstDifference('abcX', 'abcY') // → 3
 * @example firstDifference('abc', 'abc') // → -1
 */
export function firstDifference(a: string, b: string): number {
  if (a === b) return -1;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

interface Unit {
  text: string;
  width: number;
}

/** The units (graphemes or code points) of `text[from, to)`, with their widths. */
function unitsOf(text: string, from: number, to: number, measure: 'columns' | 'chars'): Unit[] {
  const part = text.slice(from, to);
  if (measure === 'chars') return Array.from(part, (char) => ({ text: char, width: 1 }));
  return Array.from(graphemes(part), (g) => ({ text: g, width: graphemeWidth(g) }));
}

function widthOf(units: readonly Unit[], from = 0): number {
  let sum = 0;
  for (let i = from; i < units.length; i++) sum += units[i]!.width;
  return sum;
}

/** Moves an index off the second half of a surrogate pair, so no slice starts or ends inside a character. */
function boundary(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return index > 0 && code >= 0xdc00 && code <= 0xdfff ? index - 1 : index;
}

/** Code units both strings end with, never reaching back past `from` (where they first differ). */
function commonSuffix(a: string, b: string, from: number): number {
  const most = Math.min(a.length, b.length) - from;
  let n = 0;
  while (n < most && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n++;
  return n;
}

/**
 * Excerpts of two values, at most `width` long each (see `measure`), centred on their first difference, with
 * where the changed part starts and ends in each (to colour or highlight it). Texts that both fit come back whole.
 *
 * @example
 * diffExcerpt('{"id":1,"text":"a long answer that ends with 42"}', '{"id":1,"text":"a long answer that ends with 43"}', 20)
 * // → { a: '…that ends with 42"}', b: '…that ends with 43"}', at: 17, endA: 18, endB: 18 }
 */
export function diffExcerpt(a: string, b: string, width: number, options: ExcerptOptions = {}): DiffExcerpt {
  const measure = options.measure ?? 'columns';
  const differ = firstDifference(a, b);
  // Only a window around the difference is ever shown: a multi-megabyte value costs what is shown.
  const reach = Math.max(width, 1) * UNITS_PER_COLUMN + 32;
  const pivot = Math.max(0, differ);
  const from = boundary(a, Math.max(0, pivot - reach));
  const unitsA = unitsOf(a, from, boundary(a, Math.min(a.length, pivot + reach)), measure);
  const unitsB = unitsOf(b, from, boundary(b, Math.min(b.length, pivot + reach)), measure);
  const cutBefore = from > 0;
  const cutAfterA = from + lengthOf(unitsA) < a.length;
  const cutAfterB = from + lengthOf(unitsB) < b.length;
  const suffix = differ < 0 ? 0 : commonSuffix(a, b, differ);

  // The first unit that differs (graphemes: a combining mark changes the character it sits on).
  let d = 0;
  while (d < unitsA.length && d < unitsB.length && unitsA[d]!.text === unitsB[d]!.text) d++;

  let start = 0;
  const whole = (units: Unit[], cut: boolean) => !cutBefore && !cut && widthOf(units) <= width;
  if (differ >= 0 && !(whole(unitsA, cutAfterA) && whole(unitsB, cutAfterB))) {
    // Context before the difference: half the room (an ellipsis each side), more when what follows is short
    // enough on both sides to be shown whole.
    const tail = (units: Unit[], cut: boolean) => (cut ? Number.POSITIVE_INFINITY : widthOf(units, d));
    const after = Math.max(tail(unitsA, cutAfterA), tail(unitsB, cutAfterB));
    let before = Math.floor(Math.max(0, width - 2) / 2);
    if (after <= width - 1 - before) before = width - 1 - after;
    start = d;
    let taken = 0;
    while (start > 0 && taken + unitsA[start - 1]!.width <= before) {
      start--;
      taken += unitsA[start]!.width;
    }
  }
  // Everything before fits when the walk reached the start of the text: no leading ellipsis then.
  const lead = start > 0 || cutBefore ? '…' : '';
  const offset = from + lengthOf(unitsA.slice(0, start));

  /** One side's excerpt, and where its changed part (up to `changeEnd` in the whole text) ends in it. */
  const side = (units: Unit[], cutAfter: boolean, changeEnd: number): [string, number] => {
    const budget = width - lead.length;
    let used = 0;
    let i = start;
    while (i < units.length && used + units[i]!.width <= budget) used += units[i++]!.width;
    if (i < units.length || cutAfter) {
      // Cut short: drop units until the trailing ellipsis fits.
      while (i > start && used + 1 > budget) used -= units[--i]!.width;
    }
    const kept = units.slice(start, i);
    const text = kept.map((u) => u.text).join('');
    const shown = lead + text + (i < units.length || cutAfter ? '…' : '');
    if (differ < 0) return [shown, -1];
    // The changed part ends at the first unit boundary at or past changeEnd, within what is shown.
    let end = 0;
    let at = offset;
    for (const unit of kept) {
      if (at >= changeEnd) break;
      at += unit.text.length;
      end += unit.text.length;
    }
    return [shown, lead.length + end];
  };
  const [textA, endA] = side(unitsA, cutAfterA, a.length - suffix);
  const [textB, endB] = side(unitsB, cutAfterB, b.length - suffix);
  const at = differ < 0 ? -1 : lead.length + lengthOf(unitsA.slice(start, d));
  return { a: textA, b: textB, at, endA: Math.max(endA, at), endB: Math.max(endB, at) };
}

function lengthOf(units: readonly Unit[]): number {
  let n = 0;
  for (const unit of units) n += unit.text.length;
  return n;
}
