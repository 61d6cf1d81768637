/**
 * Trajectory names become file names in the data folder, so a name must never reach outside it or hide in it:
 * no path separators, no `..`, no leading dot, nothing unprintable, at most 128 characters.
 */

export const MAX_NAME_LENGTH = 128;

/** Control characters, DEL, the Unicode line and paragraph separators, and a byte-order mark. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;

/**
 * Why `name` cannot be a trajectory name, or undefined when it can.
 *
 * @example nameProblem('../etc') // → "a trajectory name cannot contain '..' (got '../etc')"
 */
export function nameProblem(name: string): string | undefined {
  const shown = JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name);
  if (name.length === 0) return 'a trajectory name cannot be empty';
  if (name.length > MAX_NAME_LENGTH)
    return `a trajectory name is at most ${MAX_NAME_LENGTH} characters (got ${name.length})`;
  if (name.trim() !== name) return `a trajectory name cannot start or end with white space (got ${shown})`;
  if (/[/\\]/.test(name)) return `a trajectory name cannot contain '/' or '\\' (got ${shown})`;
  if (name.includes('..')) return `a trajectory name cannot contain '..' (got ${shown})`;
  if (name.startsWith('.')) return `a trajectory name cannot start with '.' (got ${shown})`;
  if (UNPRINTABLE.test(name)) return `a trajectory name must be printable (got ${shown})`;
  return undefined;
}

/**
 * Returns `name` when it is a valid trajectory name, else throws an Error whose message says what is wrong and
 * what names look like (tool handlers turn it into an `isError` result).
 *
 * @example checkName('my_session') // → 'my_session'
 */
export function checkName(name: string, what = 'name'): string {
  const problem = nameProblem(name);
  if (problem !== undefined)
    throw new Error(`bad ${what}: ${problem}; use letters, digits, '-', '_' or '.', e.g. my_session`);
  return name;
}
