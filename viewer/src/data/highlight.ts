/**
 * Where the search box's text occurs in what a row or the detail pane shows, so the matches can be marked. The
 * search itself (filter.ts) looks through a message's JSON; this finds the same text, or the same regular
 * expression, in the words on screen.
 */

/** Start and end (exclusive) of each match, in order, not overlapping. */
export type Ranges = readonly (readonly [number, number])[];

/** Finds the matches of one search in any text. */
export type Finder = (text: string) => Ranges;

/** At most this many matches are marked in one text (a search for `e` in a long result is not worth more). */
const MAX_MATCHES = 200;

/**
 * A finder for the search box's text (case-insensitive), or its regular expression with `regex`; undefined when
 * there is nothing to find or the expression does not compile.
 *
 * @example finderOf('sum', false)!('get-sum: the SUM') // → [[4, 7], [13, 16]]
 */
export function finderOf(q: string | undefined, regex: boolean): Finder | undefined {
  const query = q?.trim() ?? '';
  if (query === '') return undefined;
  let re: RegExp;
  try {
    re = regex ? new RegExp(query, 'gi') : new RegExp(escapeRegExp(query), 'gi');
  } catch {
    return undefined;
  }
  return (text) => {
    const out: [number, number][] = [];
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null && out.length < MAX_MATCHES; m = re.exec(text)) {
      // An empty match (`a*`) marks nothing and must not stall the loop.
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      out.push([m.index, m.index + m[0].length]);
    }
    return out;
  };
}

/** One piece of a text: marked (a match) or not. */
export interface Piece {
  text: string;
  hit: boolean;
}

/**
 * A text cut at its matches.
 *
 * @example pieces('get-sum', [[4, 7]]) // → [{ text: 'get-', hit: false }, { text: 'sum', hit: true }]
 */
export function pieces(text: string, ranges: Ranges): Piece[] {
  const out: Piece[] = [];
  let at = 0;
  for (const [from, to] of ranges) {
    if (from > at) out.push({ text: text.slice(at, from), hit: false });
    out.push({ text: text.slice(from, to), hit: true });
    at = to;
  }
  if (at < text.length) out.push({ text: text.slice(at), hit: false });
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
