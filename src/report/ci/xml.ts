/**
 * Text made safe for XML 1.0. Escaping `&`, `<` and `>` is not enough: XML 1.0 forbids most C0 control characters,
 * U+FFFE, U+FFFF and lone surrogates outright — not even `&#1;` is allowed — and a parser rejects the whole report
 * for one of them. A server's answer can hold any of these, so they are written as visible `\uXXXX` text instead.
 */

/** What XML 1.0 allows nowhere. With the `u` flag a paired surrogate is one code point, so only lone ones match. */
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/gu;

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };

/** In an attribute, white space other than a plain space is normalized away by parsers unless it is a reference. */
const ATTRIBUTE_ESCAPES: Record<string, string> = {
  ...TEXT_ESCAPES,
  '"': '&quot;',
  "'": '&apos;',
  '\n': '&#10;',
  '\t': '&#9;',
};

function visible(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Escapes text for an element's content.
 *
 * @example xmlText('a < b\u0007') // → 'a &lt; b\\u0007'
 */
export function xmlText(text: string): string {
  return text.replace(FORBIDDEN, visible).replace(/[&<>\r]/g, (char) => TEXT_ESCAPES[char]!);
}

/**
 * Escapes text for an attribute value in double quotes; line breaks and tabs survive as character references.
 *
 * @example xmlAttribute('say "hi"\n') // → 'say &quot;hi&quot;&#10;'
 */
export function xmlAttribute(text: string): string {
  return text.replace(FORBIDDEN, visible).replace(/[&<>\r"'\n\t]/g, (char) => ATTRIBUTE_ESCAPES[char]!);
}
