import type { Json } from './types.js';

/**
 * Ignore paths: JSONPath locations left out of a comparison (`$.params.arguments.timestamp` in a request,
 * `$.result.content[0].text` in an answer). Comparing only needs one question answered per location — "does this
 * path select it?" — so a compiled path is that predicate. Strings compile with `compileIgnorePath`
 * (src/replay/cassette/paths.ts, on the JSONPath subset redaction rules use); callers may pass their own {@link IgnorePath} objects.
 */

/** One concrete location inside a JSON value: object keys and array indexes from the root. */
export type JsonLocation = readonly (string | number)[];

/** A compiled JSONPath, as matching and diffing use it. */
export interface IgnorePath {
  /** The path as the user wrote it, for messages. */
  readonly source: string;
  /** True when the path selects `location` (e.g. `['params', 'arguments', 'timestamp']`). */
  matches(location: JsonLocation): boolean;
}

/** Marks a location that an ignore path removed. */
const REMOVED = Symbol('removed');

/**
 * A copy of `value` without the locations any of `paths` selects (array items that go are dropped, so the rest
 * still compare position by position).
 *
 * @example removePaths({ a: 1, b: 2 }, [compileIgnorePath('$.b')]) // → { a: 1 }
 */
export function removePaths(value: Json, paths: readonly IgnorePath[]): Json {
  if (paths.length === 0) return value;
  const out = prune(value, [], paths);
  return out === REMOVED ? null : out;
}

function prune(value: Json, at: (string | number)[], paths: readonly IgnorePath[]): Json | typeof REMOVED {
  if (at.length > 0 && paths.some((path) => path.matches(at))) return REMOVED;
  if (Array.isArray(value)) {
    const items: Json[] = [];
    value.forEach((item, i) => {
      const kept = prune(item, [...at, i], paths);
      if (kept !== REMOVED) items.push(kept);
    });
    return items;
  }
  if (typeof value === 'object' && value !== null) {
    const object: { [key: string]: Json } = {};
    for (const [key, item] of Object.entries(value)) {
      const kept = prune(item, [...at, key], paths);
      if (kept !== REMOVED) object[key] = kept;
    }
    return object;
  }
  return value;
}
