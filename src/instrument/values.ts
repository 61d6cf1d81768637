import { type CompiledRules, compile } from '../redact/compile.js';
import { redactHeaders } from '../redact/engine.js';
import type { HeaderRule, RedactConfig } from '../redact/types.js';
import { redactJson } from '../redact/walk.js';
import type { Json } from '../trace/types.js';
import { CREDENTIAL_HEADER_RULES } from './defaults.js';

/** Headers as a transport or framework hands them over. */
export type RawHeaders = Record<string, string | string[] | undefined>;

/** The smallest per-string limit tried before a value is replaced by a preview of its JSON. */
const MIN_STRING_LIMIT = 64;

/**
 * Turns captured values into what may leave the process: redacted by the tapedeck rules, then cut to
 * `maxValueLength`. Built once per recorder (compiling rules is the costly part).
 */
export class ValuePolicy {
  private readonly rules: CompiledRules;
  private readonly credentials: CompiledRules;

  constructor(
    redaction: RedactConfig,
    extraHeaders: readonly string[],
    private readonly maxLength: number,
  ) {
    this.rules = compile(redaction);
    const extra = extraHeaders.map((name): HeaderRule => ({ type: 'header', name }));
    // Apart from `redaction`, which may have its defaults off: these can be added to, never removed.
    this.credentials = compile({
      defaults: false,
      rules: [...CREDENTIAL_HEADER_RULES, ...extra],
      mode: 'marker',
    });
  }

  /**
   * Redacts then truncates; names `field` in `truncated` when it had to cut. The value is not copied: redaction
   * copies only what it changes, and sinks serialize events soon after (dropping `undefined` members as the wire
   * does).
   */
  value(value: unknown, field: string, truncated: string[]): Json {
    const redacted = redactJson((value ?? null) as Json, this.rules);
    // Serializing just to measure is the costly part: only values that may be too long get measured.
    if (surelyFits(redacted, this.maxLength)) return redacted;
    let cut: Json;
    try {
      cut = truncateJson(redacted, this.maxLength);
    } catch {
      truncated.push(field);
      return '[unserializable]';
    }
    if (cut !== redacted) truncated.push(field);
    return cut;
  }

  /** Credential headers always hidden, other values through the value rules; undefined entries left out. */
  headers(headers: RawHeaders): Record<string, string | string[]> {
    const defined: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined) defined[name.toLowerCase()] = value;
    }
    return redactHeaders(redactHeaders(defined, this.credentials), this.rules);
  }

  /** A URL through the value rules (a token in a query string). */
  text(text: string): string {
    const out = redactJson(text, this.rules);
    return typeof out === 'string' ? out : text;
  }
}

/** JSON escapes can make a string up to six times longer (`\u0000`); below this share of the limit nothing is cut. */
const ESCAPE_FACTOR = 6;

/**
 * True when `value`'s JSON is certainly within `max` characters, by a cheap walk that stops early — so only
 * values that may be too long are serialized to be measured. Deep or cyclic values answer false.
 */
function surelyFits(value: unknown, max: number): boolean {
  return budgetLeft(value, Math.floor(max / ESCAPE_FACTOR), 0) >= 0;
}

/** `budget` less the JSON length of `node` (roughly, never less); negative once exceeded, then it stops. */
function budgetLeft(node: unknown, budget: number, depth: number): number {
  if (depth > 64) return -1;
  if (typeof node === 'string') return budget - node.length - 2;
  if (typeof node !== 'object' || node === null) return budget - 24;
  let left = budget - 2;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length && left >= 0; i += 1) left = budgetLeft(node[i], left - 1, depth + 1);
    return left;
  }
  for (const key in node) {
    if (left < 0) break;
    left = budgetLeft((node as Record<string, unknown>)[key], left - key.length - 4, depth + 1);
  }
  return left;
}

/**
 * Keeps a value's JSON within `max` characters: long strings are cut first (keeping the structure), with a
 * `…[truncated N chars]` mark; a value still too big (many small parts) becomes a marked preview of its JSON.
 * Returns the same value when it fits.
 *
 * @example truncateJson({ text: 'x'.repeat(500) }, 100) // { text: 'xxxx…[truncated 436 chars]' }
 */
export function truncateJson(value: Json, max: number): Json {
  const text = JSON.stringify(value);
  if (text.length <= max) return value;
  for (let limit = Math.floor(max / 2); limit >= MIN_STRING_LIMIT; limit = Math.floor(limit / 4)) {
    const cut = cutStrings(value, limit);
    if (JSON.stringify(cut).length <= max) return cut;
  }
  return cutString(text, Math.max(0, max - 32));
}

function cutString(text: string, limit: number): string {
  return `${text.slice(0, limit)}…[truncated ${text.length - limit} chars]`;
}

function cutStrings(value: Json, limit: number): Json {
  if (typeof value === 'string') return value.length > limit ? cutString(value, limit) : value;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => cutStrings(item, limit));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cutStrings(item, limit)]));
}
