import { isObject, type JsonObject } from './jsonrpc.js';
import type { NormalizationRules } from './normalize.js';
import type { Json } from './types.js';

/**
 * What of an answer is behaviour, for comparing two answers to the same request (verify: recorded against live;
 * diff: one trace against another). Lists of named things (tools, prompts, resources …) line up by name, so a
 * removed tool is one difference, not a shifted list.
 */

/** A JSON value, or a gap where one side has nothing. */
export type Loose = Json | undefined;

/** Item keys that name the things in a list, tried in this order. */
const NAME_KEYS = ['name', 'uri', 'uriTemplate'] as const;

/**
 * An answer as comparisons see it: `{ result }` or `{ error }` (the id and `jsonrpc` are envelope), with the result's
 * `_meta` keys and opaque fields that request normalization drops dropped too.
 *
 * @example answerOutcome({ jsonrpc: '2.0', id: 7, result: { _meta: { progressToken: 7 }, ok: true } }, DEFAULT_NORMALIZATION)
 * // → { result: { ok: true } }
 */
export function answerOutcome(message: JsonObject, rules: NormalizationRules): JsonObject {
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

/**
 * Both values with their lists of named items lined up: recorded items in recorded order, then live-only ones; a
 * side that lacks an item has a gap there (undefined, which structuralDiff reads as absent). Lists that are not all
 * uniquely named compare position by position.
 *
 * @example alignNamedLists([{ name: 'a' }, { name: 'b' }], [{ name: 'b' }])
 * // → [[{ name: 'a' }, { name: 'b' }], [undefined, { name: 'b' }]]
 */
export function alignNamedLists(recorded: Loose, live: Loose): [Loose, Loose] {
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
    const pairs = Array.from({ length: Math.max(a.length, b.length) }, (_, i) => alignNamedLists(a[i], b[i]));
    return [pairs.slice(0, a.length).map(([x]) => x), pairs.slice(0, b.length).map(([, y]) => y)] as [
      Loose,
      Loose,
    ];
  }
  if (isObject(recorded) && isObject(live)) {
    const a: Record<string, Loose> = { ...recorded };
    const b: Record<string, Loose> = { ...live };
    for (const key of Object.keys(a)) if (key in b) [a[key], b[key]] = alignNamedLists(a[key], b[key]);
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
