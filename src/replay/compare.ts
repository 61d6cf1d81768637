import { markerSpans } from '../redact/marker.js';
import { isObject, type JsonObject } from '../trace/jsonrpc.js';
import type { Json } from '../trace/types.js';
import { type DiffOptions, type StructuralDiff, structuralDiff } from './diff.js';
import type { NormalizationRules } from './normalize.js';
import { compileIgnorePath, type IgnorePath, removePaths } from './paths.js';

/**
 * Comparing a recorded answer with a live one (verify): what of an answer is behaviour and what is harmless drift.
 * Both are compared as `{ result }` or `{ error }` — the id and `jsonrpc` are envelope. `_meta` keys and opaque
 * fields the request normalization drops are dropped here too, then per-method and user ignore paths. Recorded
 * values that redaction replaced by a marker match whatever the live server says there. Lists of named things
 * (tools, prompts, resources …) are lined up by name, so a removed tool is one difference, not a shifted list.
 */

export interface AnswerComparison {
  rules: NormalizationRules;
  /** User paths into the answer, e.g. `$.result.content[0].text`. */
  ignore: readonly IgnorePath[];
  /** Paths left out per method, e.g. `{ initialize: ['$.result.serverInfo.version'] }`. */
  perMethod: Readonly<Record<string, readonly string[]>>;
  diff: DiffOptions;
}

/** Item keys that name the things in a list, tried in this order. */
const NAME_KEYS = ['name', 'uri', 'uriTemplate'] as const;

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
    const [a, b] = alignNamed(
      removePaths(outcomeOf(recorded, options.rules), paths),
      removePaths(outcomeOf(live, options.rules), paths),
    );
    // Aligned lists may hold gaps (undefined): the diff reads a gap as an absent item.
    return structuralDiff(a as Json, acceptRedacted(a, b) as Json, '$', options.diff);
  };
}

function outcomeOf(message: JsonObject, rules: NormalizationRules): JsonObject {
  if ('error' in message && message.error !== undefined) return { error: message.error };
  const result = message.result ?? null;
  if (!isObject(result)) return { result };
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(result)) {
    if (rules.paramKeys.includes(key)) continue;
    if (key === '_meta' && isObject(value)) {
      const meta: JsonObject = {};
      for (const [name, item] of Object.entries(value)) {
        if (rules.metaKeys.includes(name) || rules.metaPrefixes.some((prefix) => name.startsWith(prefix)))
          continue;
        meta[name] = item;
      }
      if (Object.keys(meta).length > 0) out._meta = meta;
      continue;
    }
    out[key] = value;
  }
  return { result: out };
}

type Loose = Json | undefined;

/**
 * Both values with their lists of named items lined up: recorded items in recorded order, then live-only ones; a
 * side that lacks an item has a gap there. Lists that are not all uniquely named compare position by position.
 */
function alignNamed(recorded: Loose, live: Loose): [Loose, Loose] {
  if (Array.isArray(recorded) && Array.isArray(live)) {
    const key = nameKey(recorded, live);
    let a: Loose[] = recorded;
    let b: Loose[] = live;
    if (key) {
      const byName = (items: Json[]) =>
        new Map(items.map((item) => [(item as JsonObject)[key] as string, item]));
      const [mine, theirs] = [byName(recorded), byName(live)];
      const names = [...new Set([...mine.keys(), ...theirs.keys()])];
      a = names.map((name) => mine.get(name));
      b = names.map((name) => theirs.get(name));
    }
    const pairs = Array.from({ length: Math.max(a.length, b.length) }, (_, i) => alignNamed(a[i], b[i]));
    return [pairs.slice(0, a.length).map(([x]) => x), pairs.slice(0, b.length).map(([, y]) => y)] as [
      Loose,
      Loose,
    ];
  }
  if (isObject(recorded) && isObject(live)) {
    const a: Record<string, Loose> = { ...recorded };
    const b: Record<string, Loose> = { ...live };
    for (const key of Object.keys(a)) if (key in b) [a[key], b[key]] = alignNamed(a[key], b[key]);
    return [a as Json, b as Json];
  }
  return [recorded, live];
}

function nameKey(recorded: Json[], live: Json[]): string | undefined {
  if (recorded.length === 0 && live.length === 0) return undefined;
  const named = (items: Json[], key: string) => {
    const names = items.map((item) => (isObject(item) ? item[key] : undefined));
    return names.every((name) => typeof name === 'string') && new Set(names).size === names.length;
  };
  return NAME_KEYS.find((key) => named(recorded, key) && named(live, key));
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
