import type { Json } from './types.js';

/**
 * Hashing and comparing JSON values the way their canonical text would: object keys in any order, `undefined`
 * members left out, `undefined` array items as null, -0 as 0. Equal canonical JSON ⇒ equal hash and `sameJson`;
 * a hash says where to look, `sameJson` decides. Both walk the value once and build no text, which makes keying a
 * large cassette several times cheaper than canonical strings.
 */

const PRIME = 0x01000193;
const SEED = 0x811c9dc5;
const floats = new Float64Array(1);
const words = new Int32Array(floats.buffer);

function mixChar(h: number, code: number): number {
  return Math.imul(h ^ code, PRIME);
}

function hashString(text: string, h: number): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), PRIME);
  return h;
}

function hashNumber(n: number, h: number): number {
  if ((n | 0) === n) return Math.imul(mixChar(h, 0x69) ^ n, PRIME);
  floats[0] = n;
  return Math.imul(Math.imul(mixChar(h, 0x66) ^ (words[0] as number), PRIME) ^ (words[1] as number), PRIME);
}

/** Spreads the bits of an entry's hash before entries are summed (a sum of raw FNV values collides easily). */
function finish(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function hashValue(value: unknown, h: number): number {
  switch (typeof value) {
    case 'string':
      return hashString(value, mixChar(h, 0x73));
    case 'number':
      return hashNumber(value, h);
    case 'boolean':
      return mixChar(h, value ? 0x74 : 0x46);
    case 'object': {
      if (value === null) return mixChar(h, 0x6e);
      if (Array.isArray(value)) {
        h = mixChar(h, 0x5b);
        for (let i = 0; i < value.length; i++) h = hashValue(value[i] ?? null, h);
        return mixChar(h, 0x5d);
      }
      // Objects: each member hashed on its own, then summed, so key order does not count.
      let sum = 0;
      let count = 0;
      const record = value as Record<string, unknown>;
      for (const key in record) {
        const item = record[key];
        if (item === undefined || !Object.hasOwn(record, key)) continue;
        sum = (sum + finish(hashValue(item, hashString(key, SEED)))) | 0;
        count++;
      }
      return Math.imul(Math.imul(mixChar(h, 0x7b) ^ sum, PRIME) ^ count, PRIME);
    }
    default:
      return mixChar(h, 0x75);
  }
}

/**
 * A 32-bit hash of `value` that ignores object key order.
 *
 * @example jsonHash({ a: 1, b: [true] }) === jsonHash({ b: [true], a: 1 }) // → true
 */
export function jsonHash(value: Json | undefined, seed = SEED): number {
  return finish(hashValue(value, seed)) >>> 0;
}

/** A string's hash, to combine with {@link jsonHash} (a request's method with its params). */
export function textHash(text: string): number {
  return finish(hashString(text, SEED)) >>> 0;
}

/**
 * Whether `a` and `b` have the same canonical JSON.
 *
 * @example sameJson({ a: 1, b: undefined }, { a: 1 }) // → true
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let count = 0;
  for (const key in left) {
    const item = left[key];
    if (item === undefined || !Object.hasOwn(left, key)) continue;
    if (!Object.hasOwn(right, key) || !sameJson(item, right[key])) return false;
    count++;
  }
  for (const key in right) if (right[key] !== undefined && Object.hasOwn(right, key)) count--;
  return count === 0;
}
