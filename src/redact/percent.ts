/**
 * Percent-encoded text — URLs, URIs, query strings, form bodies, `Referer`, `Content-Location` and `Link` headers —
 * holds secrets in a spelling no rule knows: `auth=Bearer%20eyJ…`, `redirect=https%3A%2F%2Fuser%3Apw%40host`,
 * `q=password%3Dhunter2`, `data=%7B%22password%22%3A%22hunter2%22%7D`. The value rules also run on the decoded text,
 * and what they find there is hidden in the text as written: {@link decodedView} keeps, for each decoded character,
 * where its spelling starts.
 */

/** The decoded text and, for each of its characters (and one past the end), where it starts in the written text. */
export interface DecodedView {
  text: string;
  at: Int32Array;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  if (lower >= 97 && lower <= 102) return lower - 87;
  return -1;
}

/** The byte an escape at `i` (`%41`) spells, or -1. */
function escapeAt(text: string, i: number): number {
  if (text.charCodeAt(i) !== 37 || i + 2 >= text.length) return -1;
  const high = hexValue(text.charCodeAt(i + 1));
  const low = hexValue(text.charCodeAt(i + 2));
  return high < 0 || low < 0 ? -1 : high * 16 + low;
}

/** How many bytes a UTF-8 sequence starting with `byte` has (1–4), or 0 for a byte that cannot start one. */
function sequenceLength(byte: number): number {
  if (byte < 0x80) return 1;
  if (byte >= 0xc2 && byte <= 0xdf) return 2;
  if (byte >= 0xe0 && byte <= 0xef) return 3;
  if (byte >= 0xf0 && byte <= 0xf4) return 4;
  return 0;
}

/** True when `text` holds at least one escape (`%` and two hex digits). */
export function hasEscapes(text: string): boolean {
  for (let i = text.indexOf('%'); i >= 0 && i + 2 < text.length; i = text.indexOf('%', i + 1)) {
    if (escapeAt(text, i) >= 0) return true;
  }
  return false;
}

/** `name=value` not at the end (base64 padding is `=` at the end only), and no blanks: a form body. */
const FORM_BODY = /^[^\s=]{1,256}=[^\s=][^\s]*$/;

/** A part of a text to read decoded: [start, end), and whether a `+` in it is a space. */
export interface EncodedSegment {
  start: number;
  end: number;
  plus: boolean;
}

/** What text with no escape and no `+` gets: one list for all, never added to. */
const NO_SEGMENTS: readonly EncodedSegment[] = Object.freeze([]);

/** Characters that end a segment: blanks, quotes, angle brackets, and what separates a URL's parts and parameters. */
function isBoundary(code: number): boolean {
  return (
    code <= 32 ||
    code === 38 || // &
    code === 59 || // ;
    code === 63 || // ?
    code === 35 || // #
    code === 34 || // "
    code === 39 || // '
    code === 96 || // `
    code === 60 || // <
    code === 62 // >
  );
}

/**
 * The parts of `text` that decoding changes: runs between blanks, quotes and a URL's `?`, `#`, `&` and `;`, each
 * holding an escape, or a `+` where it is a space (in a query after a `?`, or in a form body `a=1&b=2`). A
 * parameter is one part with its name (`q=password%3Dhunter2`), so what it says is read whole; a URL encoded whole
 * (`https%3A%2F%2Fuser%3Apw%40host`) is one part. Short parts repeat (a link's parameters), and are remembered clean.
 *
 * @example encodedSegments('https://x/cb?next=%2Fhome&page=2') // [{ start: 13, end: 25, plus: true }]
 */
export function encodedSegments(text: string): readonly EncodedSegment[] {
  const first = text.indexOf('%');
  const plusAt = text.indexOf('+');
  if (first < 0 && plusAt < 0) return NO_SEGMENTS;
  const query = text.indexOf('?');
  const plusFrom = query >= 0 ? query : plusAt >= 0 && FORM_BODY.test(text) ? 0 : text.length;
  const segments: EncodedSegment[] = [];
  let start = 0;
  let escaped = false;
  let spaced = false;
  for (let i = 0; i <= text.length; i += 1) {
    const code = i < text.length ? text.charCodeAt(i) : 32;
    if (isBoundary(code)) {
      if (escaped || spaced) segments.push({ start, end: i, plus: start >= plusFrom });
      start = i + 1;
      escaped = false;
      spaced = false;
    } else if (code === 37) escaped ||= escapeAt(text, i) >= 0;
    else if (code === 43) spaced ||= i > plusFrom;
  }
  return segments;
}

/**
 * The percent-decoded text of `text` (UTF-8 escapes decoded whole, an invalid one kept as written; with `plus`, `+`
 * as a space), or undefined when decoding changes nothing. Fast: most such text holds nothing to hide, and only what
 * does needs {@link decodedView}'s map back to the written text.
 *
 * @example decodedText('q=password%3Dhunter2', true) // 'q=password=hunter2'
 */
export function decodedText(text: string, plus: boolean): string | undefined {
  let out = '';
  let at = 0;
  let percent = text.indexOf('%');
  let space = plus ? text.indexOf('+') : -1;
  while (percent >= 0 || space >= 0) {
    if (space >= 0 && (percent < 0 || space < percent)) {
      out += `${text.slice(at, space)} `;
      at = space + 1;
      space = text.indexOf('+', at);
      continue;
    }
    const byte = escapeAt(text, percent);
    if (byte >= 0x80) return decodedView(text, plus)?.text;
    if (byte >= 0) {
      out += text.slice(at, percent) + String.fromCharCode(byte);
      at = percent + 3;
    }
    percent = text.indexOf('%', byte >= 0 ? percent + 3 : percent + 1);
  }
  return at === 0 ? undefined : out + text.slice(at);
}

/**
 * The percent-decoded view of `text`, as {@link decodedText} decodes it, with where each decoded character starts in
 * `text`; undefined when decoding changes nothing.
 *
 * @example decodedView('q=password%3Dhunter2', true)?.text // 'q=password=hunter2'
 */
export function decodedView(text: string, plus: boolean): DecodedView | undefined {
  let out = '';
  const at: number[] = [];
  let changed = false;
  let i = 0;
  while (i < text.length) {
    const first = escapeAt(text, i);
    if (first < 0) {
      if (plus && text.charCodeAt(i) === 43) {
        out += ' ';
        changed = true;
      } else out += text[i];
      at.push(i);
      i += 1;
      continue;
    }
    const length = sequenceLength(first);
    const bytes = [first];
    for (let k = 1; k < length; k += 1) {
      const next = escapeAt(text, i + 3 * k);
      if (next < 0x80 || next > 0xbf) break;
      bytes.push(next);
    }
    const char = length === 0 || bytes.length < length ? undefined : decodeSequence(bytes);
    if (char === undefined) {
      // Not a whole UTF-8 character: the escape stays as written.
      out += text.slice(i, i + 3);
      at.push(i, i + 1, i + 2);
      i += 3;
      continue;
    }
    for (let k = 0; k < char.length; k += 1) at.push(i);
    out += char;
    changed = true;
    i += 3 * length;
  }
  if (!changed) return undefined;
  at.push(text.length);
  return { text: out, at: Int32Array.from(at) };
}

/** The character a complete UTF-8 sequence spells (one or two UTF-16 units), or undefined past U+10FFFF. */
function decodeSequence(bytes: readonly number[]): string | undefined {
  const [b0, b1 = 0, b2 = 0, b3 = 0] = bytes;
  let code: number;
  if (bytes.length === 1) code = b0!;
  else if (bytes.length === 2) code = ((b0! & 0x1f) << 6) | (b1 & 0x3f);
  else if (bytes.length === 3) code = ((b0! & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f);
  else code = ((b0! & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
  return code > 0x10ffff ? undefined : String.fromCodePoint(code);
}
