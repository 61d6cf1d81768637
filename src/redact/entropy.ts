import { MARKER_PREFIX } from './marker.js';

/**
 * The high-entropy heuristic `scan` adds to the rules: a long, unbroken, random-looking mix of letters and digits is
 * probably a credential nobody wrote a rule for. It only reports; redaction never acts on a guess.
 */

export const ENTROPY_DEFAULTS = {
  /** Shorter strings are too short to tell random from not. */
  minLength: 24,
  /** Longer ones are data (base64 images, documents), not credentials. */
  maxLength: 512,
  /**
   * Bits per character a candidate needs — capped by what its length allows: 24 random base62 characters average
   * 4.25 bits, and 1 in 20 falls under 4.0, so short candidates are held to `log2(length) - 0.8` instead.
   */
  minBitsPerChar: 4,
} as const;

/**
 * Shannon entropy in bits per character.
 *
 * @example shannonEntropy('abcd') // 2
 */
export function shannonEntropy(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  const length = [...counts.values()].reduce((a, b) => a + b, 0);
  for (const count of counts.values()) {
    const p = count / length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

const LETTER = /[A-Za-z]/;
const DIGIT = /[0-9]/;
/** Hex with or without dashes: git SHAs, sha256 sums, UUIDs. Hashes are not secrets. */
const HEX = /^[0-9a-fA-F-]+$/;
/** Crockford base32 ULIDs, the other common random-looking id. */
const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
/** Subresource-integrity and similar digests: `sha512-…`, `sha256:…`. */
const DIGEST = /^(?:sha(?:1|224|256|384|512)|md5)[-:]/i;
/** Base64 of common binary formats (PNG, JPEG, GIF, WebP/RIFF, PDF, zip): small inline images are data too. */
const BINARY_BASE64 = /^(?:iVBORw0KGgo|\/9j\/|R0lGOD|UklGR|JVBERi0|UEsDB)/;
const URL_LIKE = /^(?:[a-z][a-z0-9+.-]{0,20}:\/\/|www\.|mailto:|data:)/i;
const PATH_LIKE = /^(?:\/|\.\.?\/|~\/|[A-Za-z]:\\)/;
/** Parts between separators in `claude-3-5-sonnet-20241022`: each is a word or a number, none a random mix. */
const SEPARATORS = /[-_.:/@+=]+/;

function mixesLettersAndDigits(part: string): boolean {
  return LETTER.test(part) && DIGIT.test(part);
}

/**
 * Whether one whitespace-free token looks like a secret: 24–512 characters, letters mixed with digits within a
 * part, entropy near what random text of that length has — and not a UUID, hash, ULID, digest, inline image, URL,
 * path or identifier made of words and numbers.
 *
 * @example looksLikeSecret('Zx8kP2mQ9vL4nR7tW1yB6cF3hJ5sD0gA') // true
 */
export function looksLikeSecret(token: string): boolean {
  const { minLength, maxLength, minBitsPerChar } = ENTROPY_DEFAULTS;
  if (token.length < minLength || token.length > maxLength || token.includes(MARKER_PREFIX)) return false;
  if (HEX.test(token) || ULID.test(token) || DIGEST.test(token) || BINARY_BASE64.test(token)) return false;
  if (URL_LIKE.test(token) || PATH_LIKE.test(token) || token.includes('://')) return false;
  // A relative path or a dotted name: separated words, typically with a file extension or a dash.
  if (token.includes('/') && /[.\-_]/.test(token) && !/[+=]/.test(token)) return false;
  if (!token.split(SEPARATORS).some(mixesLettersAndDigits)) return false;
  const needed = Math.min(minBitsPerChar, Math.log2(token.length) - 0.8);
  return shannonEntropy(token) >= needed;
}

/** Characters that end a token in free text: whitespace, quotes, brackets and list punctuation. */
const TOKEN_BREAK = /[\s"'`,;(){}<>|]+/;
/** `NAME=value` / `name:value`: the value is the candidate. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}[=:]/;

/**
 * The secret-looking tokens of a string, markers already cut out by the caller. Long strings are only split, never
 * scanned character by character twice, so a 10 MB value costs one split.
 *
 * @example randomTokens('key=Zx8kP2mQ9vL4nR7tW1yB6cF3hJ5sD0gA, id=6f1c2a52-8d0e-4c1b-9a55-0d4b8e0f9c11') // ['Zx8k…']
 */
export function randomTokens(text: string): string[] {
  const found: string[] = [];
  if (text.length < ENTROPY_DEFAULTS.minLength) return found;
  for (const piece of text.split(TOKEN_BREAK)) {
    if (piece.length < ENTROPY_DEFAULTS.minLength) continue;
    const assignment = ASSIGNMENT.exec(piece);
    const token = assignment !== null && !URL_LIKE.test(piece) ? piece.slice(assignment[0].length) : piece;
    if (looksLikeSecret(token)) found.push(token);
  }
  return found;
}
