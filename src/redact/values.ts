import type { Json } from '../trace/types.js';
import { base64Runs, encodedTextAt } from './base64.js';
import type { CompiledRules } from './compile.js';
import { LONG_VALUE, mayMatch } from './hints.js';
import { formatMarker, isMarker, markerSpans } from './marker.js';
import { findPairs } from './pairs.js';
import { hasTokenRun, RUN_GATE } from './patterns.js';
import { decodedText, decodedView, encodedSegments } from './percent.js';

/**
 * What detection (`scan`) wants to hear while the engine works; redaction itself passes none, and then no paths
 * are ever built. `where` names the place: a JSON path, `text`, `command[3]`, `headers.authorization` …
 */
export interface Hits {
  /** A rule hid `secret` (a whole value for key, path and header rules; the matched part for value rules). */
  hit(rule: string, where: string, secret: Json): void;
  /** A string as it stands after redaction, for heuristics that look at what rules left. */
  rest(where: string, text: string): void;
  /** Something the engine could not look inside (a base64 run too long to decode, JSON nested too deep). */
  unchecked?(where: string, what: string): void;
}

/**
 * Values a key or path rule replaces: strings (not markers already), numbers and booleans (`"password": 123456`,
 * a PIN, a one-time code), objects and arrays. Only null stays: it holds nothing.
 */
export function hideable(value: Json | undefined): boolean {
  if (typeof value === 'string') return !isMarker(value);
  return value !== null && value !== undefined;
}

/** Redacts text found inside a string (decoded base64) the way a string value is, JSON in it included. */
export type NestedText = (text: string, compiled: CompiledRules, depth: number, where: string) => string;

/** Where a string is being redacted, and how decoded text inside it (base64) is redacted in turn. */
interface TextScope {
  compiled: CompiledRules;
  hits: Hits | undefined;
  where: string;
  /** How many strings-within-strings (JSON in a string, text in base64) this one sits in. */
  depth: number;
  /** Default: text rules only. */
  nested: NestedText | undefined;
}

/** Strings nested in strings deeper than this are not opened (their own text is still scanned). */
export const MAX_TEXT_DEPTH = 4;

interface Span {
  start: number;
  end: number;
  rule: string;
  /** Tie-break between spans of equal extent: the value rules in order, then pairs, decoded base64, decoded escapes. */
  order: number;
  hash: boolean;
}

/** What a value with nothing to hide gets: one list for all, never added to. */
const NO_SPANS: readonly Span[] = Object.freeze([]);

/** The characters a secret-named pair needs: `NAME=value`, `name: value`. */
const PAIR_CHARS = ['=', ':'];

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
export function hideInText(
  text: string,
  compiled: CompiledRules,
  hits?: Hits,
  where = 'text',
  depth = 0,
  nested?: NestedText,
): string {
  if (hits !== undefined || text.length > SHORT_TEXT) {
    return scanText(text, { compiled, hits, where, depth, nested });
  }
  const clean = compiled.clean;
  if (clean.has(text)) return text;
  const out = scanText(text, { compiled, hits, where, depth, nested });
  if (out === text) {
    if (clean.size >= CLEAN_ENTRIES) clean.clear();
    clean.add(text);
  }
  return out;
}

function collectSpans(text: string, scope: TextScope): Span[] | undefined {
  const { compiled } = scope;
  const values = compiled.values;
  let spans: Span[] | undefined;
  let order = 0;
  const long = text.length >= LONG_VALUE;
  // A token needs a run of token characters; prose, paths, dates and UUIDs have none, and skip every gated rule (a
  // megabyte of prose too: the test reads a fraction of it, and data answers at its first characters).
  const run = hasTokenRun(text, RUN_GATE);
  const found = (start: number, end: number) => {
    spans ??= [];
    spans.push({ start, end, rule: values[order]!.id, order, hash: false });
  };
  // A long value's sweep also says whether it holds `=` or `:`, which pairs need: its memory is read once.
  let pairs: readonly string[] | undefined;
  if (run) {
    const present = compiled.hints.present(text, long ? PAIR_CHARS : undefined);
    if (long) pairs = PAIR_CHARS.filter((ch) => present?.has(ch) === true);
    for (; order < values.length; order += 1) {
      const matcher = values[order]!;
      if (mayMatch(matcher.hints, present)) matcher.find(text, found);
    }
  } else {
    const present = compiled.free.hints.present(text, long ? PAIR_CHARS : undefined);
    if (long) pairs = PAIR_CHARS.filter((ch) => present?.has(ch) === true);
    for (order of compiled.free.order) {
      const matcher = values[order]!;
      if (mayMatch(matcher.hints, present)) matcher.find(text, found);
    }
  }
  const pairOrder = values.length;
  findPairs(text, compiled, pairs, (start, end, rule, hash) => {
    spans ??= [];
    spans.push({ start, end, rule, order: pairOrder, hash });
  });
  if (!long && scope.depth < MAX_TEXT_DEPTH) {
    // A URL, a query or a form body: what the rules find in the decoded text is hidden as it is written.
    for (const segment of encodedSegments(text)) {
      for (const span of secretsDecoded(text.slice(segment.start, segment.end), segment.plus, scope)) {
        spans ??= [];
        const start = span.start + segment.start;
        spans.push({ ...span, start, end: span.end + segment.start, order: pairOrder + 2 });
      }
    }
  }
  // A long value is looked into when it is a file sent as base64 (its first KB decode to text); an image never is.
  const encodedFrom = !long ? 0 : scope.depth < MAX_TEXT_DEPTH ? encodedTextAt(text) : -1;
  // A long value is opened whatever its runs: base64 of text may hold `+` and `/` every few characters.
  if ((run || long) && encodedFrom >= 0 && scope.depth < MAX_TEXT_DEPTH) {
    for (const encoded of base64Runs(text, encodedFrom)) {
      if (encoded.unchecked) {
        scope.hits?.unchecked?.(scope.where, `base64 run of ${encoded.end - encoded.start} characters`);
        continue;
      }
      const rule = secretIn(encoded.text!, scope);
      if (rule !== undefined) {
        spans ??= [];
        spans.push({ start: encoded.start, end: encoded.end, rule, order: pairOrder + 1, hash: false });
      }
    }
  }
  return spans;
}

/**
 * What the rules find in `part` read percent-decoded, as spans of `part` as written. A decoded part found clean is
 * remembered when short (a link's parameters repeat), and only a part with something to hide pays for the map from
 * decoded characters back to written ones.
 */
function secretsDecoded(part: string, plus: boolean, scope: TextScope): Span[] {
  const decoded = decodedText(part, plus);
  if (decoded === undefined) return [];
  const clean = scope.compiled.clean;
  // Remembered only when looked at with every rule (base64 is not opened past MAX_TEXT_DEPTH).
  const short = decoded.length <= SHORT_TEXT && scope.hits === undefined && scope.depth + 1 < MAX_TEXT_DEPTH;
  if (short && clean.has(decoded)) return [];
  const found = collectSpans(decoded, { ...scope, depth: scope.depth + 1 });
  if (found === undefined) {
    if (short) {
      if (clean.size >= CLEAN_ENTRIES) clean.clear();
      clean.add(decoded);
    }
    return [];
  }
  const view = decodedView(part, plus);
  if (view === undefined) return [];
  return found.map((span) => ({ ...span, start: view.at[span.start]!, end: view.at[span.end]! }));
}

/** The rule that would hide something in `decoded` (text from base64), or undefined when it holds nothing. */
function secretIn(decoded: string, scope: TextScope): string | undefined {
  let first: string | undefined;
  const inner: TextScope = {
    compiled: scope.compiled,
    where: scope.where,
    depth: scope.depth + 1,
    nested: scope.nested,
    hits: {
      hit(rule) {
        first ??= rule;
      },
      rest() {},
    },
  };
  if (scope.nested !== undefined) {
    const out = scope.nested(decoded, scope.compiled, scope.depth + 1, scope.where);
    if (out === decoded) return undefined;
    // Which rule: the text pass names it, when the nested pass (JSON keys) did not leave one to find.
    scanText(decoded, inner);
    return first ?? 'base64';
  }
  scanText(decoded, inner);
  return first;
}

/** The spans `text` loses, in order and apart: earliest first, then longest; none touching a marker already there. */
function chosenSpans(text: string, scope: TextScope): readonly Span[] {
  const spans = collectSpans(text, scope);
  if (spans === undefined) return NO_SPANS;
  spans.sort((a, b) => a.start - b.start || b.end - a.end || a.order - b.order);
  const markers = markerSpans(text);
  const chosen: Span[] = [];
  let at = 0;
  let m = 0;
  for (const span of spans) {
    if (span.start < at) continue;
    while (m < markers.length && markers[m]![1] <= span.start) m += 1;
    if (m < markers.length && markers[m]![0] < span.end) continue;
    chosen.push(span);
    at = span.end;
  }
  return chosen;
}

function scanText(text: string, scope: TextScope): string {
  const { compiled, hits, where } = scope;
  const spans = chosenSpans(text, scope);
  if (spans.length === 0) {
    hits?.rest(where, text);
    return text;
  }
  let out = '';
  let at = 0;
  for (const span of spans) {
    const secret = text.slice(span.start, span.end);
    hits?.hit(span.rule, where, secret);
    const style = span.hash ? { mode: 'hash' as const, hasher: compiled.stableHash } : compiled.style;
    out += text.slice(at, span.start) + formatMarker(span.rule, secret, style);
    at = span.end;
  }
  out += text.slice(at);
  hits?.rest(where, out);
  return out;
}

/**
 * Where the value rules would hide something in `text`: [start, end) and the rule, in order and apart, as
 * {@link redactText} would replace them.
 *
 * @example secretSpans('key ghp_0123456789abcdefghijABCDEFGHIJ012345', compiled) // [{ start: 4, end: 44, rule: 'github-token' }]
 */
export function secretSpans(
  text: string,
  compiled: CompiledRules,
): Array<{ start: number; end: number; rule: string }> {
  return chosenSpans(text, { compiled, hits: undefined, where: 'text', depth: 0, nested: undefined }).map(
    ({ start, end, rule }) => ({ start, end, rule }),
  );
}

/**
 * Runs the value rules (regexes, PEM, secret-named pairs, base64 that decodes to a secret) over one string: every
 * match becomes `[REDACTED:<rule>]` (or its hash form). Returns the same string when nothing matched.
 *
 * @example redactText('token ghp_0123456789abcdefghijABCDEFGHIJ012345 used', compile(config)) // 'token [REDACTED:github-token] used'
 */
export function redactText(text: string, compiled: CompiledRules): string {
  return hideInText(text, compiled);
}
