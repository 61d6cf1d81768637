import { wholeMarkers } from './describe.js';
import { diffExcerpt } from './excerpt.js';
import type { Json } from './types.js';

/**
 * Structural diff of two JSON values, for people: where they differ (as JSON paths like `$.params.arguments.b`) and
 * what each side holds there. Values are shortened for display; the list is capped.
 */

/**
 * One difference. `recorded` is the baseline side (a recording, or the first trace of a diff), `live` the other.
 * A side that has no value at the path (a missing key or array item) has no property.
 */
export interface DiffEntry {
  path: string;
  recorded?: Json;
  live?: Json;
}

export interface StructuralDiff {
  /** The first differences, in key order (at most `maxEntries`). */
  entries: DiffEntry[];
  /** How many differences there are in all (counting stops at `countLimit`). */
  total: number;
}

export interface DiffOptions {
  maxEntries: number;
  /** Longer strings, and objects or arrays whose JSON is longer, are shortened. */
  maxValueLength: number;
  /** Counting stops here: enough to rank candidates, bounded on huge values. */
  countLimit: number;
}

export const DIFF_DEFAULTS: DiffOptions = { maxEntries: 20, maxValueLength: 60, countLimit: 1000 };

/**
 * What the entries show in place of the values compared: each side as it may be shown (redacted), the same shape
 * as the side itself except where a whole subtree became one value (a marker), which then stands for everything in
 * it. The comparison is made on the values; only what an entry shows comes from here.
 */
export interface ShownSides {
  recorded: Json | undefined;
  live: Json | undefined;
}

/**
 * Compares `recorded` with `live` (undefined = absent). With `shown`, entries show its values at the paths that
 * differ instead of the compared ones: a secret that changed is one difference, shown as its marker on both sides.
 *
 * @example structuralDiff({ arguments: { b: 3 } }, { arguments: { b: 4 } }, '$.params').entries
 * // → [{ path: '$.params.arguments.b', recorded: 3, live: 4 }]
 */
export function structuralDiff(
  recorded: Json | undefined,
  live: Json | undefined,
  root = '$',
  options: Partial<DiffOptions> = {},
  shown?: ShownSides,
): StructuralDiff {
  const opts = { ...DIFF_DEFAULTS, ...options };
  const diff: StructuralDiff = { entries: [], total: 0 };
  walk(recorded, live, root, diff, opts, shown === undefined ? undefined : [shown.recorded, shown.live]);
  return diff;
}

/** The shown counterpart of a child: the child of a shown container, or the value that stands for the whole. */
function shownChild(shown: Json | undefined, key: string | number): Json | undefined {
  if (Array.isArray(shown)) return typeof key === 'number' ? shown[key] : undefined;
  if (isPlainObject(shown)) return typeof key === 'string' ? shown[key] : undefined;
  return shown;
}

/**
 * How many leaves differ, stopping at `limit`: the distance used to rank candidates.
 *
 * @example diffSize({ a: 1, b: 2 }, { a: 1, b: 3 }) // → 1
 */
export function diffSize(recorded: Json | undefined, live: Json | undefined, limit = 1000): number {
  return structuralDiff(recorded, live, '$', { maxEntries: 0, countLimit: limit }).total;
}

function walk(
  a: Json | undefined,
  b: Json | undefined,
  path: string,
  diff: StructuralDiff,
  opts: DiffOptions,
  shown: [Json | undefined, Json | undefined] | undefined,
) {
  if (diff.total >= opts.countLimit) return;
  const child = (key: string | number): [Json | undefined, Json | undefined] | undefined =>
    shown === undefined ? undefined : [shownChild(shown[0], key), shownChild(shown[1], key)];
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++)
      walk(a[i], b[i], `${path}[${i}]`, diff, opts, child(i));
    return;
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) walk(a[key], b[key], childPath(path, key), diff, opts, child(key));
    return;
  }
  // Equal leaves; containers of different kinds, or a container against a leaf, differ as a whole.
  if (a === b) return;
  diff.total++;
  if (diff.entries.length >= opts.maxEntries) return;
  const entry: DiffEntry = { path };
  // A side that is absent stays absent; a present one shows its shown value.
  const sideA = a === undefined || shown === undefined ? a : shown[0];
  const sideB = b === undefined || shown === undefined ? b : shown[1];
  const [shownA, shownB] = shortenPair(sideA, sideB, opts.maxValueLength);
  if (shownA !== undefined) entry.recorded = shownA;
  if (shownB !== undefined) entry.live = shownB;
  diff.entries.push(entry);
}

function isPlainObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * A child path in JSONPath notation: `.name` for identifiers, `['other name']` otherwise.
 *
 * @example childPath('$.params._meta', 'io.modelcontextprotocol/clientInfo') // → "$.params._meta['io.modelcontextprotocol/clientInfo']"
 */
export function childPath(path: string, key: string): string {
  return IDENTIFIER.test(key)
    ? `${path}.${key}`
    : `${path}['${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
}

/**
 * Both sides cut down for display. Two strings, or two containers (as JSON), that differ somewhere in a long value
 * are cut around their first difference, so the change stays in view; anything else is cut on its own.
 */
function shortenPair(
  a: Json | undefined,
  b: Json | undefined,
  max: number,
): [Json | undefined, Json | undefined] {
  if (typeof a === 'string' && typeof b === 'string') {
    if (a.length <= max && b.length <= max) return [a, b];
    const excerpt = diffExcerpt(a, b, max + 1, { measure: 'chars' });
    return [endWhole(excerpt.a), endWhole(excerpt.b)];
  }
  if (isContainer(a) && isContainer(b)) {
    const textA = JSON.stringify(a);
    const textB = JSON.stringify(b);
    if (textA.length <= max && textB.length <= max) return [a, b];
    const excerpt = diffExcerpt(textA, textB, max + 1, { measure: 'chars' });
    return [
      textA.length <= max && excerpt.a === textA ? a : endWhole(excerpt.a),
      textB.length <= max && excerpt.b === textB ? b : endWhole(excerpt.b),
    ];
  }
  return [a === undefined ? a : shorten(a, max), b === undefined ? b : shorten(b, max)];
}

/** An excerpt cut off at its end (`…`) without a redaction marker cut in two there. */
function endWhole(excerpt: string): string {
  return excerpt.endsWith('…') ? `${wholeMarkers(excerpt.slice(0, -1))}…` : excerpt;
}

function isContainer(value: Json | undefined): value is Json[] | { [key: string]: Json } {
  return typeof value === 'object' && value !== null;
}

/** A value cut down for display: long strings end in `…`, big containers become a short JSON prefix. */
function shorten(value: Json, max: number): Json {
  if (typeof value === 'string') return value.length > max ? `${wholeMarkers(value.slice(0, max))}…` : value;
  if (typeof value !== 'object' || value === null) return value;
  const text = JSON.stringify(value);
  return text.length > max ? `${wholeMarkers(text.slice(0, max))}…` : value;
}

/**
 * A value as one short piece of text: JSON, `absent` for a missing one.
 *
 * @example formatValue(undefined) // → 'absent'
 */
export function formatValue(value: Json | undefined, max = DIFF_DEFAULTS.maxValueLength): string {
  if (value === undefined) return 'absent';
  const text = JSON.stringify(value);
  return text.length > max ? `${wholeMarkers(text.slice(0, max))}…` : text;
}

/**
 * Both sides of a difference as short text: JSON, `absent` for a missing one; two long values are cut around
 * their first difference (see diffExcerpt), so the change stays in view.
 *
 * @example formatValuePair('x'.repeat(80) + 'A', 'x'.repeat(80) + 'B', 20) // → ['…xxxxxxxxxxxxxxxxxxA"', '…xxxxxxxxxxxxxxxxxxB"']
 */
export function formatValuePair(
  a: Json | undefined,
  b: Json | undefined,
  max = DIFF_DEFAULTS.maxValueLength,
): [string, string] {
  if (a === undefined || b === undefined) return [formatValue(a, max), formatValue(b, max)];
  const textA = JSON.stringify(a);
  const textB = JSON.stringify(b);
  if (textA.length <= max && textB.length <= max) return [textA, textB];
  const excerpt = diffExcerpt(textA, textB, max + 1, { measure: 'chars' });
  return [endWhole(excerpt.a), endWhole(excerpt.b)];
}

/**
 * One line for a diff: its first `show` entries, then how many more there are.
 *
 * @example formatDiff(diff) // → '$.params.arguments.b: recorded 3, live 4'
 */
export function formatDiff(diff: StructuralDiff, show = 2): string {
  const parts = diff.entries.slice(0, show).map((e) => {
    const [recorded, live] = formatValuePair(e.recorded, e.live);
    return `${e.path}: recorded ${recorded}, live ${live}`;
  });
  const more = diff.total - Math.min(show, diff.entries.length);
  if (more > 0) parts.push(`and ${more} more`);
  return parts.join('; ');
}
