import { TapedeckError } from '../errors.js';
import { childStates, type PathSegment, parsePath, rootStates, selectedBy } from '../redact/jsonpath.js';
import type { Json } from '../trace/types.js';

/**
 * User ignore paths (`--ignore '$.params.arguments.timestamp'`): JSONPath into the request message
 * `{ method, params }`. Matching only needs one question answered per location — "does this path select it?" — so a
 * compiled path is that predicate: strings compile with the shared JSONPath subset, and callers may pass their own
 * {@link IgnorePath} objects.
 */

/** One concrete location inside a JSON value: object keys and array indexes from the root. */
export type JsonLocation = readonly (string | number)[];

/** A compiled JSONPath, as the matcher uses it. */
export interface IgnorePath {
  /** The path as the user wrote it, for messages. */
  readonly source: string;
  /** True when the path selects `location` (e.g. `['params', 'arguments', 'timestamp']`). */
  matches(location: JsonLocation): boolean;
}

/**
 * Compiles with the JSONPath subset redaction rules use (src/redact/jsonpath.ts): `$`, `.name`, `['any name']`,
 * `[n]`, `[*]`, `.*`, and `..` descent.
 */
function compileJsonPath(source: string): IgnorePath {
  let segments: PathSegment[];
  try {
    segments = parsePath(source.trim());
  } catch (err) {
    // A bad --ignore value is a usage error; the parser's message already names the position and the syntax.
    const why = err instanceof Error ? err.message : String(err);
    throw new TapedeckError('usage', `bad ignore path: ${why}`, { cause: err });
  }
  const paths = [segments];
  return {
    source,
    matches(location) {
      let states: readonly number[] = rootStates(paths);
      for (const key of location) {
        states = childStates(paths, states, key);
        if (states.length === 0) return false;
      }
      return selectedBy(paths, states) >= 0;
    },
  };
}

/**
 * Compiles an ignore path, or passes an already compiled one through.
 *
 * @example compileIgnorePath('$.params.arguments.timestamp').matches(['params', 'arguments', 'timestamp']) // → true
 */
export function compileIgnorePath(path: string | IgnorePath): IgnorePath {
  return typeof path === 'string' ? compileJsonPath(path) : path;
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
