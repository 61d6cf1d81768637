import type { Json } from './types.js';

/**
 * Canonical JSON: object keys sorted (by UTF-16 code unit, as `Array.prototype.sort` orders them) at every depth,
 * no whitespace. Equal values give equal text whatever their key order, which is what matching keys and keyed
 * hashes of redacted values both need. One definition, so a request's matching key and a marker's hash can never
 * disagree about what "the same value" is.
 */

/**
 * @example canonicalJson({ b: [1, { d: 2, c: 3 }], a: null }) // → '{"a":null,"b":[1,{"c":3,"d":2}]}'
 * @example canonicalJson({ b: 1, 10: 1, 2: 1 }) // → '{"10":1,"2":1,"b":1}' (keys sorted as text, digits too)
 */
export function canonicalJson(value: Json | undefined): string {
  if (value === undefined) return 'undefined';
  // The native stringify of a key-sorted view: several times faster than building the text by hand, and it gives
  // flat strings, which hash cheaply as Map keys and take less memory than concatenated ones. An object with a
  // key that looks like an array index is the exception: the engine lists such keys first, in numeric order,
  // whatever order they were set in, so that value is written by hand.
  const sorted = sortedKeys(value);
  return sorted === INDEX_KEY ? byHand(value) : JSON.stringify(sorted);
}

/** Returned by sortedKeys when some object holds an index-like key, which no object can hold in sorted order. */
const INDEX_KEY: unique symbol = Symbol('index key');

type JsonObject = { [key: string]: Json };

/** `value` itself when every object in it has its keys in order already, else a copy that has. */
function sortedKeys(value: Json): Json | typeof INDEX_KEY {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: Json[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as Json;
      const sorted = sortedKeys(item);
      if (sorted === INDEX_KEY) return INDEX_KEY;
      if (sorted !== item) {
        copy ??= value.slice();
        copy[i] = sorted;
      }
    }
    return copy ?? value;
  }
  const keys = Object.keys(value);
  let inOrder = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const first = key.charCodeAt(0);
    if (first >= 48 && first <= 57 && /^\d+$/.test(key)) return INDEX_KEY;
    if (i > 0 && inOrder) inOrder = (keys[i - 1] as string) <= key;
  }
  if (!inOrder) keys.sort();
  let copy: JsonObject | undefined;
  for (const key of keys) {
    const item = value[key] as Json;
    const sorted = sortedKeys(item);
    if (sorted === INDEX_KEY) return INDEX_KEY;
    if (sorted === item && inOrder && copy === undefined) continue;
    if (copy === undefined) {
      copy = {};
      // Rebuild in sorted order; in the already-ordered case, catch up on the keys passed so far.
      if (inOrder)
        for (const before of keys)
          if (before === key) break;
          else define(copy, before, value[before] as Json);
    }
    define(copy, key, sorted);
  }
  return copy ?? value;
}

/** The text built key by key, for values the engine would not keep in sorted order. */
function byHand(value: Json): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(byHand).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${byHand(value[key] as Json)}`).join(',')}}`;
}

/** Sets an own property, `__proto__` included (plain assignment would change the prototype instead). */
function define(object: JsonObject, key: string, value: Json): void {
  if (key === '__proto__')
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}
