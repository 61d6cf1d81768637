import { canonicalJson } from '../trace/canonical-json.js';
import type { Json } from '../trace/types.js';
import type { RedactMode, ValueHasher } from './types.js';

/** Every marker starts with this; a value holding it is checked for markers before anything is replaced. */
export const MARKER_PREFIX = '[REDACTED:';

/** The marker written when redaction itself failed: the line's payload is dropped rather than risked. */
export const REDACTION_ERROR_MARKER = '[REDACTED:redaction_error]';

/** What a rule id may look like: it is written inside markers, so no `]`, `:` or spaces. */
export const RULE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

// Bounded and anchored on a literal: linear on any input. Matches both `[REDACTED:id]` and `[REDACTED:id:hex12]`.
const MARKER = /\[REDACTED:[A-Za-z0-9][A-Za-z0-9_.-]{0,63}(?::[0-9a-f]{12})?\]/g;
const EXACT_MARKER = /^\[REDACTED:[A-Za-z0-9][A-Za-z0-9_.-]{0,63}(?::[0-9a-f]{12})?\]$/;

/** How markers are written: the mode, and the keyed hash `hash` mode needs. */
export interface MarkerStyle {
  mode: RedactMode;
  hasher: ValueHasher | undefined;
}

/**
 * The marker that stands for `value`: `[REDACTED:<rule>]`, or in `hash` mode `[REDACTED:<rule>:<12 hex>]` so equal
 * secrets give equal markers. Objects and arrays are hashed as canonical JSON (sorted keys).
 *
 * @example formatMarker('github-token', 'ghp_…', { mode: 'marker', hasher: undefined }) // '[REDACTED:github-token]'
 */
export function formatMarker(rule: string, value: Json, style: MarkerStyle): string {
  if (style.mode !== 'hash' || style.hasher === undefined) return `${MARKER_PREFIX}${rule}]`;
  const text = typeof value === 'string' ? value : canonicalJson(value);
  const hex = style.hasher(text).slice(0, 12).toLowerCase();
  if (!/^[0-9a-f]{12}$/.test(hex)) {
    throw new Error(`the value hasher returned ${JSON.stringify(hex)}; expected at least 12 hex digits`);
  }
  return `${MARKER_PREFIX}${rule}:${hex}]`;
}

/**
 * True when `value` is exactly one marker (what a key or path rule leaves behind).
 *
 * @example isMarker('[REDACTED:token:0123456789ab]') // true; isMarker('x [REDACTED:token]') // false
 */
export function isMarker(value: string): boolean {
  return value.length <= 96 && value.startsWith(MARKER_PREFIX) && EXACT_MARKER.test(value);
}

/** The [start, end) spans of markers inside `text`, in order; empty when it holds none. */
export function markerSpans(text: string): Array<[number, number]> {
  if (!text.includes(MARKER_PREFIX)) return [];
  const spans: Array<[number, number]> = [];
  MARKER.lastIndex = 0;
  for (let m = MARKER.exec(text); m !== null; m = MARKER.exec(text)) {
    spans.push([m.index, m.index + m[0].length]);
  }
  return spans;
}

/** A marker, its hash (in hash mode) captured. */
const MARKER_PARTS = /\[REDACTED:[A-Za-z0-9][A-Za-z0-9_.-]{0,63}(?::([0-9a-f]{12}))?\]/g;

/**
 * `value` with the rule ids taken out of its markers — `[REDACTED:token]` → `[REDACTED]`, `[REDACTED:token:<hex>]` →
 * `[REDACTED:<hex>]` — for comparing a redacted recording with a live request redacted now. Which rule names a value
 * depends on the rules of the tapedeck that redacted it (a newer one names a GitHub token under a `token` key
 * `github-token`), and in marker mode any secret stands for any other; the hash, keyed per install, still tells
 * secrets apart. Returns the same value when it holds no marker.
 *
 * @example markersWithoutRules({ token: '[REDACTED:github-token]' }) // { token: '[REDACTED]' }
 */
export function markersWithoutRules(value: Json): Json {
  if (typeof value === 'string') {
    return value.includes(MARKER_PREFIX) ? value.replace(MARKER_PARTS, (_, hex) => withoutRule(hex)) : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  // Markers hold no character JSON escapes, so they are rewritten in the text, whatever the nesting.
  const text = JSON.stringify(value);
  if (!text.includes(MARKER_PREFIX)) return value;
  return JSON.parse(text.replace(MARKER_PARTS, (_, hex) => withoutRule(hex))) as Json;
}

function withoutRule(hex: string | undefined): string {
  return hex === undefined ? '[REDACTED]' : `[REDACTED:${hex}]`;
}
