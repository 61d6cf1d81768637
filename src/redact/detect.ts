import { canonicalJson } from '../trace/canonical-json.js';
import type { Json, TraceLine } from '../trace/types.js';
import type { CompiledRules } from './compile.js';
import { redactLine } from './engine.js';
import { randomTokens } from './entropy.js';
import { markerSpans } from './marker.js';
import type { TraceState } from './state.js';
import type { Hits } from './values.js';

/** Something `scan` found: which rule, where in the line, and a preview that does not give the value away. */
export interface Finding {
  /** A rule id (`github-token`, `api-key` …) or `entropy` for the heuristic. */
  rule: string;
  /** `$.params.arguments.apiKey` inside a message, else `text`, `command[3]`, `headers.authorization`, `url` … */
  path: string;
  /** First few characters, `…`, and the length: `ghp_…(40)`. */
  preview: string;
  /** The 1-based column (UTF-16 units) where the value starts in the line's text, when that was given and holds it. */
  column?: number;
}

export interface FindOptions {
  /** Also report high-entropy strings no rule covers (default true). */
  entropy?: boolean;
  /**
   * The trace's state, when its lines are scanned in order: then the body lines of a private key printed line by
   * line, and `conn` values that are session ids, are found as the redactor would hide them. One per trace.
   */
  state?: TraceState;
  /** Told about what could not be looked inside (a base64 run too long to decode, JSON nested too deep). */
  onUnchecked?: (where: string, what: string) => void;
  /**
   * The line as read (the JSON text it was parsed from): findings then say in which column their value starts, so
   * a code scanning alert can point at it. A value not found there as written (decoded from base64, escaped
   * differently) has no column.
   */
  text?: string;
}

/** The id findings of the high-entropy heuristic carry. */
export const ENTROPY_RULE = 'entropy';

/**
 * Masks a value for a report: at most 4 leading characters (fewer for short values, so a 6-character password
 * shows one), `…`, and the length.
 *
 * @example previewOf('ghp_0123456789abcdefghijABCDEFGHIJ012345') // 'ghp_…(40)'
 */
export function previewOf(value: Json): string {
  const text = typeof value === 'string' ? value : canonicalJson(value);
  const shown = Math.min(4, Math.floor(text.length / 4));
  return `${text.slice(0, shown)}…(${text.length})`;
}

/** Cuts markers out of a string (as spaces) so the heuristic never mistakes a hash marker for a secret. */
function withoutMarkers(text: string): string {
  const spans = markerSpans(text);
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [start, end] of spans) {
    out += `${text.slice(at, start)} `;
    at = end;
  }
  return out + text.slice(at);
}

/**
 * What redaction with `compiled` would hide in one line, as findings — plus, unless turned off, high-entropy
 * strings the rules miss. Markers are never findings, so a redacted trace scans clean.
 *
 * @example findSecrets({ t, dir: 'in', raw: { params: { apiKey: 'abc' } } }, compile(config)) // [{ rule: 'api-key', path: '$.params.apiKey', preview: '…(3)' }]
 */
export function findSecrets(line: TraceLine, compiled: CompiledRules, options: FindOptions = {}): Finding[] {
  const findings: Finding[] = [];
  const entropy = options.entropy ?? true;
  const columnOf = options.text === undefined ? () => undefined : columnFinder(options.text);
  const found = (rule: string, path: string, value: Json) => {
    const column = columnOf(value);
    findings.push({ rule, path, preview: previewOf(value), ...(column === undefined ? {} : { column }) });
  };
  const hits: Hits = {
    hit(rule, where, secret) {
      found(rule, where, secret);
    },
    rest(where, text) {
      if (!entropy) return;
      for (const token of randomTokens(withoutMarkers(text))) found(ENTROPY_RULE, where, token);
    },
    unchecked(where, what) {
      options.onUnchecked?.(where, what);
    },
  };
  redactLine(line, compiled, hits, options.state);
  return findings;
}

/** Values this short are found inside a longer string only as a word of their own: bare, they match anywhere. */
const SHORTEST_BARE = 8;

/**
 * Where values start in a line's text, 1-based. Findings come in the order the line is walked, which is the
 * order of its text, so each search starts after the last value found, and only then goes back to the line's
 * start. A value is looked for as a whole JSON value first (a string with its quotes: the strongest anchor), then
 * inside a longer string (`PASSWORD=hunter2`, `https://u:pw@host`, `--password pw`), where a short one must stand
 * as a word of its own.
 *
 * @example columnFinder('{"key":"abc"}')('abc') // → 9
 * @example columnFinder('{"text":"pwd: abc"}')('abc') // → 15
 */
function columnFinder(text: string): (value: Json) => number | undefined {
  let from = 0;
  const found = (at: number, length: number, offset: number) => {
    from = at + length;
    return at + offset + 1;
  };
  return (value) => {
    const json = JSON.stringify(value);
    const inner = typeof value === 'string' ? json.slice(1, -1) : '';
    for (const start of from === 0 ? [0] : [from, 0]) {
      const whole = text.indexOf(json, start);
      if (whole >= 0) return found(whole, json.length, typeof value === 'string' ? 1 : 0);
      if (inner === '') continue;
      const word = indexOfWord(text, inner, start);
      if (word >= 0) return found(word, inner.length, 0);
      if (inner.length < SHORTEST_BARE) continue;
      const bare = text.indexOf(inner, start);
      if (bare >= 0) return found(bare, inner.length, 0);
    }
    return undefined;
  };
}

/** `needle` in `text` from `start` where it is a word of its own (no letter or digit right before or after). */
function indexOfWord(text: string, needle: string, start: number): number {
  for (let at = text.indexOf(needle, start); at >= 0; at = text.indexOf(needle, at + 1)) {
    if (!wordCharBefore(text, at) && !WORD.test(text[at + needle.length] ?? '')) return at;
  }
  return -1;
}

const WORD = /^[A-Za-z0-9]$/;

/** A letter or digit right before `at` — unless it ends an escape such as `\n` in the JSON text. */
function wordCharBefore(text: string, at: number): boolean {
  if (!WORD.test(text[at - 1] ?? '')) return false;
  return text[at - 2] !== '\\';
}
