/**
 * How many terminal columns text takes: what fits a row to a window, and what keeps a diff excerpt inside its
 * budget. A user-perceived character (a grapheme: a base with its combining marks, an emoji with its modifiers and
 * joiners) takes 2 columns when it is East Asian wide or fullwidth, or an emoji shown as a picture; 0 when it is
 * only marks, joiners or control characters; else 1 — as terminals (and monospace fonts) lay them out.
 *
 * Written here rather than taken from a package: it must run in the browser beside the rest of the format, and
 * the command line is bundled as CommonJS for Node 20, which cannot `require` the ES-module-only width packages
 * before 20.19.
 */

/**
 * The East Asian Wide (W) and Fullwidth (F) ranges of Unicode's EastAsianWidth.txt that are not emoji (emoji are
 * told by their Emoji_Presentation property below): Hangul, CJK, kana, fullwidth forms, the ideographic planes.
 * Flat pairs [first, last], sorted, for a binary search.
 */
const WIDE: readonly number[] = [
  0x1100, 0x115f, 0x2329, 0x232a, 0x2e80, 0x2e99, 0x2e9b, 0x2ef3, 0x2f00, 0x2fd5, 0x2ff0, 0x303e, 0x3041,
  0x3096, 0x3099, 0x30ff, 0x3105, 0x312f, 0x3131, 0x318e, 0x3190, 0x31e3, 0x31ef, 0x321e, 0x3220, 0x3247,
  0x3250, 0x4dbf, 0x4e00, 0xa48c, 0xa490, 0xa4c6, 0xa960, 0xa97c, 0xac00, 0xd7a3, 0xf900, 0xfaff, 0xfe10,
  0xfe19, 0xfe30, 0xfe52, 0xfe54, 0xfe66, 0xfe68, 0xfe6b, 0xff01, 0xff60, 0xffe0, 0xffe6, 0x16fe0, 0x16fe4,
  0x16ff0, 0x16ff1, 0x17000, 0x187f7, 0x18800, 0x18cd5, 0x18d00, 0x18d08, 0x1aff0, 0x1affe, 0x1b000, 0x1b2fb,
  0x1f004, 0x1f004, 0x1f0cf, 0x1f0cf, 0x1f18e, 0x1f18e, 0x1f191, 0x1f19a, 0x1f200, 0x1f202, 0x1f210, 0x1f23b,
  0x1f240, 0x1f248, 0x1f250, 0x1f251, 0x1f260, 0x1f265, 0x20000, 0x2fffd, 0x30000, 0x3fffd,
];

function isWide(code: number): boolean {
  if (code < 0x1100) return false;
  let low = 0;
  let high = WIDE.length / 2 - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (code < WIDE[mid * 2]!) high = mid - 1;
    else if (code > WIDE[mid * 2 + 1]!) low = mid + 1;
    else return true;
  }
  return false;
}

/** Marks, format characters (zero-width space, joiners, the BOM), Hangul vowel and final jamo, controls. */
const ZERO = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}\u1160-\u11ff]$/u;
const EMOJI_PRESENTATION = /^\p{Emoji_Presentation}$/u;
const PICTOGRAPHIC = /^\p{Extended_Pictographic}$/u;
/** Text that is all printable ASCII takes one column a character: no segmenting needed. */
const PLAIN = /^[\x20-\x7e]*$/;
/**
 * What joins code points into one character: combining marks, the zero-width joiner, variation selectors, the
 * keycap mark, Hangul vowel and final jamo, regional indicators (flags), skin tones, tag characters. Text without
 * any is one character per code point, and is measured without segmenting — the common case, and far faster.
 */
const JOINER =
  /^(?:\u200d|\u20e3|[\ufe00-\ufe0f]|[\u{1f3fb}-\u{1f3ff}]|[\p{M}\u1160-\u11ff\u{1f1e6}-\u{1f1ff}\u{e0020}-\u{e007f}])$/u;
/** The class of a code point that joins its neighbours (see JOINER). */
const JOINS = -1;

/**
 * Made on first use: building one costs milliseconds, which every command that merely loads this module (record,
 * replay) would pay at start-up; null where the runtime has none.
 */
let segmenter: Intl.Segmenter | null | undefined;

function graphemeSegmenter(): Intl.Segmenter | null {
  segmenter ??=
    typeof Intl === 'object' && typeof Intl.Segmenter === 'function'
      ? new Intl.Segmenter(undefined, { granularity: 'grapheme' })
      : null;
  return segmenter;
}

/**
 * The user-perceived characters of a text, in order (code points where the runtime cannot segment).
 *
 * @example [...graphemes('e\u0301👍🏽')] // → ['é', '👍🏽']
 */
export function* graphemes(text: string): Generator<string> {
  const by = simpleWidth(text) === JOINS ? graphemeSegmenter() : null;
  if (by === null) {
    yield* text;
    return;
  }
  for (const { segment } of by.segment(text)) yield segment;
}

/** Classes of the code points from U+0300 up met so far (the ones that need a property lookup). */
const classes = new Map<number, number>();

/** Columns one code point takes on its own (0, 1 or 2), or JOINS for one that joins its neighbours. */
function codePointClass(code: number): number {
  // Latin and its neighbours before the combining marks: controls take nothing, the rest one column.
  if (code < 0x300) return code < 0x20 || (code >= 0x7f && code < 0xa0) || code === 0xad ? 0 : 1;
  let found = classes.get(code);
  if (found === undefined) {
    const char = String.fromCodePoint(code);
    found = JOINER.test(char)
      ? JOINS
      : ZERO.test(char)
        ? 0
        : EMOJI_PRESENTATION.test(char) || isWide(code)
          ? 2
          : 1;
    // Bounded: a text of every code point there is cannot grow it past this.
    if (classes.size > 4096) classes.clear();
    classes.set(code, found);
  }
  return found;
}

/** Columns one code point standing alone takes (a lone mark or joiner: none). */
function codePointWidth(code: number): number {
  return Math.max(0, codePointClass(code));
}

/** The columns of a text with no joining code point, one code point at a time; JOINS when it has one. */
function simpleWidth(text: string): number {
  let width = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.codePointAt(i)!;
    if (code > 0xffff) i++;
    const found = codePointClass(code);
    if (found === JOINS) return JOINS;
    width += found;
  }
  return width;
}

/**
 * Columns one grapheme takes: 0, 1 or 2.
 *
 * @example graphemeWidth('日') // → 2
 * @example graphemeWidth('\u0301') // → 0
 */
export function graphemeWidth(grapheme: string): number {
  const first = grapheme.codePointAt(0);
  if (first === undefined) return 0;
  if (grapheme.length === 1 || (grapheme.length === 2 && first > 0xffff)) return codePointWidth(first);
  // A digit, # or * made a keycap (1️⃣) is a picture.
  if (grapheme.includes('\u20e3')) return 2;
  const base = String.fromCodePoint(first);
  if (ZERO.test(base)) return 0;
  // Two regional indicators make a flag; one alone is a letter in a box.
  if (first >= 0x1f1e6 && first <= 0x1f1ff) return grapheme.length > 2 ? 2 : 1;
  if (EMOJI_PRESENTATION.test(base)) return 2;
  // A pictograph asked to show as an emoji (VS16, ❤️) takes a picture's two columns.
  if (grapheme.includes('\ufe0f') && PICTOGRAPHIC.test(base)) return 2;
  return isWide(first) ? 2 : 1;
}

/**
 * Columns a text takes in a terminal (no escape codes expected: strip colours first).
 *
 * @example displayWidth('ab') // → 2
 * @example displayWidth('日本 🎉') // → 7
 * @example displayWidth('👨‍👩‍👧') // → 2
 */
export function displayWidth(text: string): number {
  if (PLAIN.test(text)) return text.length;
  let width = simpleWidth(text);
  if (width !== JOINS) return width;
  width = 0;
  for (const grapheme of graphemes(text)) width += graphemeWidth(grapheme);
  return width;
}

/**
 * Cuts text to at most `width` columns, an ellipsis (one column) included; a wide character that would straddle
 * the edge goes whole, and so does white space left before the ellipsis. Never splits a grapheme.
 *
 * @example clipWidth('日本語のテキスト', 7) // → '日本語…'
 * @example clipWidth('short', 10) // → 'short'
 */
export function clipWidth(text: string, width: number): string {
  if (width <= 0) return '';
  if (PLAIN.test(text))
    return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1)).trimEnd()}…`;
  const kept: string[] = [];
  let used = 0;
  /** How many graphemes the last prefix held that still leaves a column for the ellipsis. */
  let cutAt = 0;
  for (const grapheme of graphemes(text)) {
    const w = graphemeWidth(grapheme);
    // Too long: go back to the last place an ellipsis still fits.
    if (used + w > width) return `${kept.slice(0, cutAt).join('').trimEnd()}…`;
    kept.push(grapheme);
    used += w;
    if (used <= width - 1) cutAt = kept.length;
  }
  return kept.join('');
}
