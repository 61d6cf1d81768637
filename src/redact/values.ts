import type { Json } from '../trace/types.js';
import type { CompiledRules } from './compile.js';
import { formatMarker, isMarker, markerSpans } from './marker.js';
import { LONG_VALUE, mayMatch, presentHints } from './patterns.js';

/**
 * What detection (`scan`) wants to hear while the engine works; redaction itself passes none, and then no paths
 * are ever built. `where` names the place: a JSON path, `text`, `command[3]`, `headers.authorization` …
 */
export interface Hits {
  /** A rule hid `secret` (a whole value for key, path and header rules; the matched part for value rules). */
  hit(rule: string, where: string, secret: Json): void;
  /** A string as it stands after redaction, for heuristics that look at what rules left. */
  rest(where: string, text: string): void;
}

/** Values a key or path rule replaces: strings (not markers already), objects and arrays. Numbers, booleans, null stay. */
export function hideable(value: Json | undefined): boolean {
  if (typeof value === 'string') return !isMarker(value);
  return typeof value === 'object' && value !== null;
}

interface Span {
  start: number;
  end: number;
  rule: number;
}

/** Strings up to this long that hold no secret are remembered as clean. */
const SHORT_TEXT = 64;
/** How many clean strings a rule set remembers before it starts over. */
const CLEAN_ENTRIES = 4096;

/**
 * Runs the value rules over one string and returns it with every match replaced by its marker — the very same
 * string when nothing matched. All rules look at the original text, so one rule never sees another's markers;
 * where matches overlap, the earliest (then longest, then first-listed) wins, and a match touching an existing
 * marker is dropped: a redacted text redacts to itself. Short strings found clean are remembered (only clean
 * ones: no secret is kept), which spares the repeated names and values of MCP traffic a scan.
 */
export function hideInText(text: string, compiled: CompiledRules, hits?: Hits, where = 'text'): string {
  if (hits !== undefined || text.length > SHORT_TEXT) return scanText(text, compiled, hits, where);
  const clean = compiled.clean;
  if (clean.has(text)) return text;
  const out = scanText(text, compiled, undefined, where);
  if (out === text) {
    if (clean.size >= CLEAN_ENTRIES) clean.clear();
    clean.add(text);
  }
  return out;
}

function scanText(text: string, compiled: CompiledRules, hits: Hits | undefined, where: string): string {
  const values = compiled.values;
  let spans: Span[] | undefined;
  let rule = 0;
  const found = (start: number, end: number) => {
    spans ??= [];
    spans.push({ start, end, rule });
  };
  const present = text.length >= LONG_VALUE ? presentHints(text, compiled.hints) : undefined;
  for (; rule < values.length; rule += 1) {
    const matcher = values[rule]!;
    if (mayMatch(text, matcher.hints, present)) matcher.find(text, found);
  }
  if (spans === undefined) {
    hits?.rest(where, text);
    return text;
  }
  spans.sort((a, b) => a.start - b.start || b.end - a.end || a.rule - b.rule);
  const markers = markerSpans(text);
  let out = '';
  let at = 0;
  let m = 0;
  for (const span of spans) {
    if (span.start < at) continue;
    while (m < markers.length && markers[m]![1] <= span.start) m += 1;
    if (m < markers.length && markers[m]![0] < span.end) continue;
    const secret = text.slice(span.start, span.end);
    const id = values[span.rule]!.id;
    hits?.hit(id, where, secret);
    out += text.slice(at, span.start) + formatMarker(id, secret, compiled.style);
    at = span.end;
  }
  if (at === 0) {
    hits?.rest(where, text);
    return text;
  }
  out += text.slice(at);
  hits?.rest(where, out);
  return out;
}

/**
 * Runs the value rules (regexes, PEM) over one string: every match becomes `[REDACTED:<rule>]` (or its hash form).
 * Returns the same string when nothing matched.
 *
 * @example redactText('token ghp_0123456789abcdefghijABCDEFGHIJ012345 used', compile(config)) // 'token [REDACTED:github-token] used'
 */
export function redactText(text: string, compiled: CompiledRules): string {
  return hideInText(text, compiled);
}
