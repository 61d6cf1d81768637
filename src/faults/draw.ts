/**
 * Seeded draws. A draw is a pure function of (seed, stream, n) — a hash, not a generator stepped in turn — so the
 * 5th request matching one fault gets the same draw whatever else the session asked, in whatever order: the same
 * seed gives the same faults every run, and adding a fault to a profile does not reshuffle the others.
 */

/** The largest seed kept exactly; larger ones are folded into 32 bits. */
const TWO_32 = 0x1_0000_0000;

/**
 * A seed as 32 bits: integers up to 2^32 − 1 as they are, larger safe integers folded (high ^ low).
 *
 * @example seed32(42) // → 42
 */
export function seed32(seed: number): number {
  const whole = Math.trunc(Math.abs(seed));
  return ((whole % TWO_32) ^ Math.floor(whole / TWO_32)) >>> 0;
}

/**
 * A fresh seed, for runs that name none (the report says which one was used, so the run can be repeated).
 *
 * @example const seed = randomSeed(); // → 0 … 4294967295
 */
export function randomSeed(): number {
  return Math.floor(Math.random() * TWO_32);
}

/** One round of a 32-bit integer mixer (the finalizer of MurmurHash3): every input bit moves every output bit. */
function mix(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85eb_ca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2_ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * A number in [0, 1) fixed by `seed`, `stream` (which fault, which use) and `n` (which matching request).
 *
 * @example draw(7, 0, 3) === draw(7, 0, 3) // → true, every run
 */
export function draw(seed: number, stream: number, n: number): number {
  let h = mix(seed32(seed) ^ 0x9e37_79b9);
  h = mix(h ^ Math.imul(stream + 1, 0x27d4_eb2f));
  h = mix(h ^ Math.imul(n + 1, 0x1656_67b1));
  return h / TWO_32;
}
