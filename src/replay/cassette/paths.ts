import { TapedeckError } from '../../base/errors.js';
import { childStates, type PathSegment, parsePath, rootStates, selectedBy } from '../../redact/jsonpath.js';
import type { IgnorePath } from '../../trace/ignore-paths.js';

/**
 * User ignore paths (`--ignore '$.params.arguments.timestamp'`): JSONPath into the request message
 * `{ method, params }` or the answer `{ result }` / `{ error }`. The predicate type and `removePaths` live with the
 * trace format (src/trace/ignore-paths.ts); compiling strings needs the JSONPath parser of src/redact, so it lives here.
 */

export { type IgnorePath, type JsonLocation, removePaths } from '../../trace/ignore-paths.js';

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
