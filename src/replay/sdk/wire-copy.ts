/**
 * What a message looks like after a trip over a wire (`JSON.parse(JSON.stringify(value))`), made without the text
 * in between: for the plain JSON data transports pass, a walk that copies is several times cheaper than writing and
 * reading the text. Anything the walk does not know how to copy the way the text would — `toJSON`, class instances,
 * non-finite numbers, `undefined` in an array, a `__proto__` key, nesting past {@link MAX_WALK_DEPTH} (a cycle) —
 * sends the whole value through the text instead, so the result is always the round trip's, errors included.
 */

/** Deeper than this, the copy goes through the text (which is also what reports a cycle). */
const MAX_WALK_DEPTH = 64;

/** Thrown inside the walk when a value needs the text; never seen outside this module. */
const NEEDS_TEXT: unique symbol = Symbol('needs text');

/**
 * The value as `JSON.parse(JSON.stringify(value))` gives it.
 *
 * @example wireCopy({ id: 1, result: { items: [1, 'a', null] }, skipped: undefined }) // → { id: 1, result: { items: [1, 'a', null] } }
 */
export function wireCopy<T>(value: T): T {
  try {
    return walk(value, 0) as T;
  } catch (error) {
    if (error !== NEEDS_TEXT) throw error;
    const text = JSON.stringify(value);
    return (text === undefined ? undefined : JSON.parse(text)) as T;
  }
}

function walk(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw NEEDS_TEXT;
      // -0 is written as 0.
      return value === 0 ? 0 : value;
    case 'object':
      if (value === null) return null;
      if (depth >= MAX_WALK_DEPTH) throw NEEDS_TEXT;
      return Array.isArray(value) ? walkArray(value, depth + 1) : walkObject(value, depth + 1);
    default:
      // undefined, functions, symbols, bigints: what the text makes of them depends on where they are.
      throw NEEDS_TEXT;
  }
}

function walkArray(items: unknown[], depth: number): unknown[] {
  if (Object.getPrototypeOf(items) !== Array.prototype) throw NEEDS_TEXT;
  const out = new Array<unknown>(items.length);
  for (let i = 0; i < items.length; i++) out[i] = walk(items[i], depth);
  return out;
}

function walkObject(value: object, depth: number): Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) throw NEEDS_TEXT;
  const record = value as Record<string, unknown>;
  if (typeof record.toJSON === 'function') throw NEEDS_TEXT;
  const out: Record<string, unknown> = {};
  // for…in lists no inherited key here (the prototype is Object.prototype or none), and makes no array of keys.
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const item = record[key];
    // Members the text leaves out.
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    if (key === '__proto__') throw NEEDS_TEXT;
    out[key] = walk(item, depth);
  }
  return out;
}
