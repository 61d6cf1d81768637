/**
 * Hints: literals every match of a rule holds, looked for with `includes` (memchr speed) before any regex runs. A
 * plan groups a rule set's hints by their first character base64 never holds (`-`, `_`, `.`, `:`, `=`, space …),
 * so one memchr for that character settles a whole group in text that lacks it, and a multi-megabyte image costs a
 * few memchr passes per cache-sized chunk. In shorter values the hints are grouped by the character of theirs least
 * likely in any text (a capital, a symbol), which most values — prose, paths, ids — lack.
 */

/** Values this long have their hints looked up chunk by chunk, for all rules together. */
export const LONG_VALUE = 1 << 18;
/** 256 KiB: a chunk stays in a core's cache while every hint is looked for in it, so memory is read once. */
const CHUNK = 1 << 18;
/** Base64 and hex never hold other characters: a hint's first character outside them is a cheap first test. */
const DATA_CHARS = /[A-Za-z0-9+/=]/;
/**
 * Characters text holds and data (base64, hex) does not. A chunk of a long value with none of them is data: hints
 * made of letters and digits only are not looked for in it — a token there would be a run of base64 that happens
 * to spell one.
 */
const TEXT_CHARS = [' ', '\n', '"', '.', ':', '-', '_'];

/** A false start of an anchor this many times over and the hint is looked for whole (never worse than before). */
const FALSE_STARTS = 32;
/** How many hints a chunk of text has looked for whole before its pairs of characters are counted instead. */
const WHOLE_LOOKS = 4;
/** A chunk's characters are counted at this stride to tell which are rare in it (a sample, not a pass). */
const SAMPLE_STRIDE = 61;
/** No characters to look for besides the hints. */
const NO_EXTRA: readonly string[] = [];
/** Characters past ASCII are counted together. */
const OTHER = 128;

/** How often each character turns up in a sample of `chunk` (the last slot counts every character past ASCII). */
function sampleCounts(chunk: string, into: Uint32Array): Uint32Array {
  into.fill(0);
  for (let i = 0; i < chunk.length; i += SAMPLE_STRIDE) {
    const code = chunk.charCodeAt(i);
    into[Math.min(code, OTHER)]! += 1;
  }
  return into;
}

/** Pairs of characters are counted in a 128 × 128 table; every character past ASCII shares the last slot. */
const PAIR_SLOTS = 1 << 14;
const LAST_SLOT = 127;

/**
 * How often each pair of adjacent characters occurs in `chunk`, in one pass. Counts are exact for ASCII pairs and
 * at least the true count for pairs with a character past ASCII (they share a slot): a pair counted 0 is absent.
 */
function pairCounts(chunk: string, into: Uint32Array): Uint32Array {
  into.fill(0);
  let prev = Math.min(chunk.charCodeAt(0) || 0, LAST_SLOT);
  for (let i = 1; i < chunk.length; i += 1) {
    const code = chunk.charCodeAt(i);
    const slot = Math.min(code, LAST_SLOT);
    into[(prev << 7) | slot]! += 1;
    prev = slot;
  }
  return into;
}

/**
 * A hint looked for in a chunk of a long value. `includes` finds a pattern by a memchr for its first character and a
 * compare at each place it meets it, so a hint starting with a character common in the chunk (`oy2`, `.eyJ` in
 * prose) stops all the time: on a megabyte of prose that was most of redaction's time. The hint's tail from its
 * rarest character in the chunk (by a sample of it) is looked for instead, each place it is found confirmed against
 * the whole hint. In text where that tail is common too (`_` in code and docs), the chunk's pairs of characters,
 * counted in one pass, settle the hint outright when it holds a pair the chunk lacks, and otherwise give the tail
 * from its rarest pair, which turns up at most as often as that pair.
 */
class Anchored {
  readonly hint: string;
  /** The hint's tails, from each of its characters on. */
  private readonly tails: string[];
  /** The table slot of each pair of the hint's adjacent characters. */
  private readonly pairs: Uint16Array;

  constructor(hint: string) {
    this.hint = hint;
    this.tails = [];
    for (let i = 0; i < hint.length; i += 1) this.tails.push(hint.slice(i));
    this.pairs = new Uint16Array(Math.max(0, hint.length - 1));
    for (let i = 0; i + 1 < hint.length; i += 1) {
      const a = Math.min(hint.charCodeAt(i), LAST_SLOT);
      this.pairs[i] = (a << 7) | Math.min(hint.charCodeAt(i + 1), LAST_SLOT);
    }
  }

  /** Whether `text` holds the hint, by the pair counts of `text` (see {@link pairCounts}). */
  inText(text: string, counts: Uint32Array): boolean {
    const { hint, pairs } = this;
    if (pairs.length === 0) return text.includes(hint);
    let at = 0;
    let fewest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < pairs.length; i += 1) {
      const count = counts[pairs[i]!]!;
      if (count === 0) return false;
      if (count < fewest) {
        fewest = count;
        at = i;
      }
    }
    // Never a low surrogate: a tail starts at a character of its own.
    const code = hint.charCodeAt(at);
    if (at > 0 && code >= 0xdc00 && code <= 0xdfff) at -= 1;
    if (at === 0) return text.includes(hint);
    // The tail turns up at most as often as its first pair: the places are few, and each is confirmed.
    const tail = this.tails[at]!;
    for (let from = at; ; ) {
      const found = text.indexOf(tail, from);
      if (found < 0) return false;
      if (text.startsWith(hint, found - at)) return true;
      from = found + 1;
    }
  }

  /**
   * Whether `text` holds the hint, by the sampled character counts of `text` (see {@link sampleCounts}). A tail
   * that keeps turning up without the hint hands over to the pair counts of a chunk of text, when `pairs` gives
   * them; otherwise the hint is then looked for whole.
   */
  in(text: string, counts: Uint32Array, pairs?: () => Uint32Array | undefined): boolean {
    const { hint } = this;
    let at = 0;
    let fewest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < hint.length; i += 1) {
      const code = hint.charCodeAt(i);
      // Never a low surrogate: a tail starts at a character of its own.
      if (code >= 0xdc00 && code <= 0xdfff) continue;
      const count = counts[Math.min(code, OTHER)]!;
      if (count < fewest) {
        fewest = count;
        at = i;
      }
    }
    if (at === 0) return text.includes(hint);
    const tail = this.tails[at]!;
    let from = at;
    for (let tries = 0; tries < FALSE_STARTS; tries += 1) {
      const found = text.indexOf(tail, from);
      if (found < 0) return false;
      if (text.startsWith(hint, found - at)) return true;
      from = found + 1;
    }
    const counted = pairs?.();
    return counted === undefined ? text.includes(hint, from - at) : this.inText(text, counted);
  }
}

/**
 * ASCII from the character least likely in a value (prose, paths, URLs, JSON text, identifiers, base64) to the most
 * likely: symbols prose and data seldom hold, capitals, `_`, digits, the separators of paths and URLs, small letters
 * (rarest first), and what every sentence holds. Unlisted characters (controls, and all past ASCII) count as rarest.
 */
const BY_RARITY =
  '~^`|\\{}<>[]$#@!*;?&%\'"()=+QZXJKVYUWGFBHPLMNDORCSEIAT_9876543210:/qzjxkvbpygfwmucldrhsnioate,-. \n\t';
/** A character's place in {@link BY_RARITY} by code (lower is rarer); -1 for unlisted ones. */
const RARITY = new Int16Array(128).fill(-1);
for (let i = 0; i < BY_RARITY.length; i += 1) RARITY[BY_RARITY.charCodeAt(i)] = i;

/**
 * The character of `hint` least likely in a value (the first of equals): a value without it cannot hold the hint,
 * and one memchr for it settles every hint it anchors (`includes` compares UTF-16 units, so any unit will do).
 */
function rarestOf(hint: string): string {
  let at = 0;
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < hint.length; i += 1) {
    const code = hint.charCodeAt(i);
    const rank = code < 128 ? RARITY[code]! : -1;
    if (rank < best) {
      best = rank;
      at = i;
    }
  }
  return hint[at]!;
}

function gateOf(hint: string): string | undefined {
  for (const ch of hint) if (!DATA_CHARS.test(ch)) return ch;
  return undefined;
}

interface Group {
  gate: string;
  hints: string[];
  /** The same hints, anchored for long values. */
  anchored: Anchored[];
}

/**
 * A rule set's hints, ready to look for. Built once per compiled rule set.
 *
 * @example new HintPlan(['ghp_', 'AKIA', '-----BEGIN ']).present('key AKIAIOSFODNN7EXAMPLE') // Set {'AKIA'}
 */
export class HintPlan {
  private readonly groups: Group[] = [];
  /** Hints made of letters and digits only: no gate spares them. */
  private readonly plain: string[] = [];
  private readonly plainAnchored: Anchored[];
  /** The hints grouped by their rarest character in text, for values shorter than {@link LONG_VALUE}. */
  private readonly anchors: Array<{ anchor: string; hints: string[] }> = [];
  /** Scratch for a chunk's sampled character counts. */
  private readonly counts = new Uint32Array(OTHER + 1);
  /** Scratch for a chunk's counted pairs of characters. */
  private readonly pairs = new Uint32Array(PAIR_SLOTS);
  private readonly longest: number;

  constructor(hints: readonly string[]) {
    const byGate = new Map<string, string[]>();
    for (const hint of new Set(hints)) {
      const gate = gateOf(hint);
      if (gate === undefined) this.plain.push(hint);
      else byGate.set(gate, [...(byGate.get(gate) ?? []), hint]);
    }
    for (const [gate, list] of byGate)
      this.groups.push({ gate, hints: list, anchored: list.map((hint) => new Anchored(hint)) });
    this.plainAnchored = this.plain.map((hint) => new Anchored(hint));
    const byAnchor = new Map<string, string[]>();
    for (const hint of new Set(hints)) {
      const anchor = rarestOf(hint);
      byAnchor.set(anchor, [...(byAnchor.get(anchor) ?? []), hint]);
    }
    for (const [anchor, list] of byAnchor) this.anchors.push({ anchor, hints: list });
    this.longest = Math.max(1, ...hints.map((hint) => hint.length));
  }

  /**
   * The hints `text` holds, or undefined when it holds none. `extra` characters are looked for too (in a long value
   * during the same sweep, so its memory is read once) and reported among the hints.
   */
  present(text: string, extra: readonly string[] = NO_EXTRA): Set<string> | undefined {
    if (text.length >= LONG_VALUE) return this.sweep(text, extra);
    let found = this.look(text);
    for (const ch of extra) if (text.includes(ch)) found = added(found, ch);
    return found;
  }

  /**
   * The hints a short value holds: a group's anchor is looked for first (one memchr), and only a group whose anchor
   * the value holds has its hints looked for whole.
   */
  private look(text: string): Set<string> | undefined {
    let found: Set<string> | undefined;
    for (const group of this.anchors) {
      if (!text.includes(group.anchor)) continue;
      for (const hint of group.hints) {
        if (found?.has(hint) !== true && text.includes(hint)) found = added(found, hint);
      }
    }
    return found;
  }

  /**
   * The hints a chunk of a long value holds: each looked for from its rarest character in a sample of the chunk, and
   * in a chunk of text that sends a hint's tail on too many false starts, by the chunk's pairs of characters, counted
   * once (see {@link Anchored.inText}). In a chunk of data, hints made of letters and digits are not looked for.
   */
  private lookAnchored(
    text: string,
    plain: boolean,
    into: Set<string> | undefined,
    absent: ReadonlySet<string>,
  ): Set<string> | undefined {
    const counts = sampleCounts(text, this.counts);
    let paired: Uint32Array | undefined;
    let whole = 0;
    // A few hints looked for whole cost less than counting pairs; past that, the pairs are counted.
    const pairs = () => {
      whole += 1;
      if (paired === undefined && whole > WHOLE_LOOKS) paired = pairCounts(text, this.pairs);
      return paired;
    };
    const has = (anchored: Anchored) => anchored.in(text, counts, plain ? pairs : undefined);
    let found = into;
    for (const group of this.groups) {
      if (absent.has(group.gate) || !text.includes(group.gate)) continue;
      for (const anchored of group.anchored) {
        if (found?.has(anchored.hint) !== true && has(anchored)) found = added(found, anchored.hint);
      }
    }
    if (plain) {
      for (const anchored of this.plainAnchored) {
        if (found?.has(anchored.hint) !== true && has(anchored)) found = added(found, anchored.hint);
      }
    }
    return found;
  }

  /**
   * One sweep of cache-sized chunks (overlapping by the longest hint, so none is missed at a seam). Each text
   * character is looked for once per chunk, and a gate known absent is not looked for again.
   */
  private sweep(text: string, extra: readonly string[]): Set<string> | undefined {
    let found: Set<string> | undefined;
    for (let at = 0; at < text.length; at += CHUNK) {
      const chunk = text.slice(at, at + CHUNK + this.longest - 1);
      const absent = new Set<string>();
      for (const ch of TEXT_CHARS) if (!chunk.includes(ch)) absent.add(ch);
      const data = absent.size === TEXT_CHARS.length;
      found = this.lookAnchored(chunk, !data, found, absent);
      for (const ch of extra) {
        if (found?.has(ch) !== true && !absent.has(ch) && chunk.includes(ch)) found = added(found, ch);
      }
    }
    return found;
  }
}

/** `found` with `hint` in it, made when there was none. */
function added(found: Set<string> | undefined, hint: string): Set<string> {
  const set = found ?? new Set<string>();
  set.add(hint);
  return set;
}

/** True when a rule with `hints` may match: it has none, or one of them is `present`. */
export function mayMatch(hints: readonly string[], present: ReadonlySet<string> | undefined): boolean {
  if (hints.length === 0) return true;
  if (present === undefined) return false;
  for (const hint of hints) if (present.has(hint)) return true;
  return false;
}
