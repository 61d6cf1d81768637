import { markerSpans } from '../redact/marker.js';
import type { OutputRedaction } from '../redact/output.js';
import { type DiffOptions, type StructuralDiff, structuralDiff } from '../replay/cassette/diff.js';
import type { NormalizationRules } from '../replay/cassette/normalize.js';
import { compileIgnorePath, type IgnorePath, removePaths } from '../replay/cassette/paths.js';
import { isObject, type JsonObject } from '../trace/jsonrpc.js';
import { alignNamedLists, answerOutcome, type Loose } from '../trace/outcome.js';
import type { Json } from '../trace/types.js';

/**
 * Comparing a recorded answer with a live one (verify): what of an answer is behaviour and what is harmless drift.
 * Both are compared as `{ result }` or `{ error }` — the id and `jsonrpc` are envelope. `_meta` keys and opaque
 * fields the request normalization drops are dropped here too, then per-method and user ignore paths. Recorded
 * values that redaction replaced by a marker match whatever the live server says there. Lists of named things
 * (tools, prompts, resources …) are lined up by name, so a removed tool is one difference, not a shifted list. The
 * answer's shape and the lining up by name are shared with `diff` (src/trace/outcome.ts).
 */

export interface AnswerComparison {
  rules: NormalizationRules;
  /** User paths into the answer, e.g. `$.result.content[0].text`. */
  ignore: readonly IgnorePath[];
  /** Paths left out per method, e.g. `{ initialize: ['$.result.serverInfo.version'] }`. */
  perMethod: Readonly<Record<string, readonly string[]>>;
  diff: DiffOptions;
  /**
   * How the diff shows values: both answers redacted as the trace would be. The comparison is made on the answers
   * as they are; each difference shows the redacted value at its place.
   */
  shown?: OutputRedaction | undefined;
}

/**
 * Builds the comparison; the returned function diffs one recorded answer with its live counterpart.
 *
 * @example
 * const compare = answerComparer({ rules: DEFAULT_NORMALIZATION, ignore: [], perMethod: {}, diff: DIFF_DEFAULTS });
 * compare('tools/call', recordedResponse, liveResponse).entries // → [{ path: '$.result.content[0].text', … }]
 */
export function answerComparer(options: AnswerComparison) {
  const compiled = new Map<string, IgnorePath[]>();
  const pathsFor = (method: string) => {
    let paths = compiled.get(method);
    if (!paths) {
      paths = [...(options.perMethod[method] ?? []).map(compileIgnorePath), ...options.ignore];
      compiled.set(method, paths);
    }
    return paths;
  };
  return (method: string, recorded: JsonObject, live: JsonObject): StructuralDiff => {
    const paths = pathsFor(method);
    const [a, b] = alignNamedLists(
      removePaths(answerOutcome(recorded, options.rules), paths),
      removePaths(answerOutcome(live, options.rules), paths),
    );
    // Aligned lists may hold gaps (undefined): the diff reads a gap as an absent item.
    const accepted = acceptRedacted(a, b) as Json;
    const shown = options.shown;
    return structuralDiff(
      a as Json,
      accepted,
      '$',
      options.diff,
      shown && { recorded: shown.message(a as Json), live: shown.message(accepted) },
    );
  };
}

/**
 * `live` with every place the recording holds a redaction marker taken from the recording, when the live value
 * fits: a whole-value marker fits anything, a marker inside a string fits any text in its place.
 */
function acceptRedacted(recorded: Loose, live: Loose): Loose {
  if (typeof recorded === 'string') {
    const spans = markerSpans(recorded);
    if (spans.length === 0 || live === undefined) return live;
    const [first] = spans;
    if (spans.length === 1 && first && first[0] === 0 && first[1] === recorded.length) return recorded;
    return typeof live === 'string' && markedPattern(recorded, spans).test(live) ? recorded : live;
  }
  if (Array.isArray(recorded) && Array.isArray(live)) {
    return live.map((item, i) => (i < recorded.length ? acceptRedacted(recorded[i], item) : item)) as Json;
  }
  if (isObject(recorded) && isObject(live)) {
    const out: Record<string, Loose> = {};
    for (const [key, value] of Object.entries(live))
      out[key] = key in recorded ? acceptRedacted(recorded[key], value) : value;
    return out as Json;
  }
  return live;
}

function markedPattern(text: string, spans: Array<[number, number]>): RegExp {
  const literal = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let source = '^';
  let at = 0;
  for (const [start, end] of spans) {
    source += `${literal(text.slice(at, start))}[\\s\\S]*?`;
    at = end;
  }
  return new RegExp(`${source}${literal(text.slice(at))}$`);
}
