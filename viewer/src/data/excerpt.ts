/**
 * Two long values that differ somewhere in the middle, cut to fit: both cut at the same prefix would look equal, so
 * each side shows a window around the first difference, with the part that differs marked.
 */

/** One side's window: the text before the difference, the differing part, the text after; `…` where cut. */
export interface Excerpt {
  before: string;
  changed: string;
  after: string;
  /** Text was left out before `before` / after `after`. */
  cutStart: boolean;
  cutEnd: boolean;
}

/**
 * Windows of at most `width` characters on `a` and `b` around their first difference: the common prefix up to a
 * third of the width before it, then the differing part and what follows. Whole texts when they fit.
 *
 * @example
 * const [a, b] = diffExcerpts(`${'x'.repeat(500)}cat${'y'.repeat(500)}`, `${'x'.repeat(500)}dog${'y'.repeat(500)}`, 40);
 * // a → { before: 'x'.repeat(13), changed: 'cat', after: 'y'.repeat(24), cutStart: true, cutEnd: true }
 */
export function diffExcerpts(a: string, b: string, width = 160): [Excerpt, Excerpt] {
  const limit = Math.min(a.length, b.length);
  let prefix = 0;
  while (prefix < limit && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  // The common suffix, never reaching back into the common prefix.
  let suffix = 0;
  while (
    suffix < limit - prefix &&
    a.charCodeAt(a.length - 1 - suffix) === b.charCodeAt(b.length - 1 - suffix)
  )
    suffix++;
  // Both sides start at the same place, so what precedes the difference reads the same on both.
  const start = safeStart(a, Math.max(0, prefix - Math.floor(width / 3)));
  return [cut(a, start, prefix, a.length - suffix, width), cut(b, start, prefix, b.length - suffix, width)];
}

function cut(text: string, start: number, from: number, to: number, width: number): Excerpt {
  const end = safeEnd(text, Math.min(text.length, start + Math.max(width, from - start + 1)));
  const changedEnd = Math.min(Math.max(from, to), end);
  return {
    before: text.slice(start, from),
    changed: text.slice(Math.min(from, end), changedEnd),
    after: text.slice(changedEnd, end),
    cutStart: start > 0,
    cutEnd: end < text.length,
  };
}

/** A cut point moved off the second half of a surrogate pair, so no character is split. */
function safeStart(text: string, at: number): number {
  return at > 0 && isLowSurrogate(text.charCodeAt(at)) ? at - 1 : at;
}

function safeEnd(text: string, at: number): number {
  return at < text.length && isLowSurrogate(text.charCodeAt(at)) ? at + 1 : at;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
