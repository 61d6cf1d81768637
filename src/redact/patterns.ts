/**
 * Value matchers: what runs on every string value. A regex rule or the PEM block finder, behind one shape, so the
 * engine only deals with [start, end) spans to hide.
 */

/** Finds the parts of a string a rule hides. */
export interface ValueMatcher {
  readonly id: string;
  /** Literals of which every match holds one; a value with none is skipped before `find` runs. Empty = always run. */
  readonly hints: readonly string[];
  /** Calls `found` with the [start, end) of every part of `text` to hide, in order. */
  find(text: string, found: (start: number, end: number) => void): void;
}

/** True when `text` holds one of `hints` (or there are none): the cheap pass that spares most values the regex. */
export function mayMatch(text: string, hints: readonly string[], present?: ReadonlySet<string>): boolean {
  if (hints.length === 0) return true;
  for (const hint of hints) if (present === undefined ? text.includes(hint) : present.has(hint)) return true;
  return false;
}

/** Values this long have their hints looked up once, chunk by chunk, for all rules together. */
export const LONG_VALUE = 1 << 18;
/** 256 KiB: a chunk stays in a core's cache while every hint is looked for in it, so memory is read once. */
const CHUNK = 1 << 18;
/** Base64 and hex never hold other characters: a hint's first character outside them is a cheap first test. */
const DATA_CHARS = /[A-Za-z0-9+/=]/;

function gateOf(hint: string): string | undefined {
  for (const ch of hint) if (!DATA_CHARS.test(ch)) return ch;
  return undefined;
}

/**
 * Which of `hints` occur in a long `text`, found in one sweep of cache-sized chunks (overlapping by the longest
 * hint, so none is missed at a seam) instead of one pass over the whole value per hint. A hint with a character
 * base64 never holds (`-`, `_`, `.`, `:`, space) is only searched for in chunks holding that character, so a
 * multi-megabyte image costs a few memchr passes per chunk.
 */
export function presentHints(text: string, hints: readonly string[]): Set<string> {
  const found = new Set<string>();
  const pending = new Set(hints);
  let longest = 0;
  for (const hint of hints) longest = Math.max(longest, hint.length);
  for (let at = 0; at < text.length && pending.size > 0; at += CHUNK) {
    const chunk = text.slice(at, at + CHUNK + longest - 1);
    const gates = new Map<string, boolean>();
    for (const hint of pending) {
      const gate = gateOf(hint);
      if (gate !== undefined && gate !== hint) {
        let open = gates.get(gate);
        if (open === undefined) {
          open = chunk.includes(gate);
          gates.set(gate, open);
        }
        if (!open) continue;
      }
      if (chunk.includes(hint)) {
        found.add(hint);
        pending.delete(hint);
      }
    }
  }
  return found;
}

const ALLOWED_FLAGS = 'imsuvg';

/**
 * Checks the flags a rule may give; returns what is wrong, or undefined. `g` is accepted and implied; `y` and `d`
 * are the engine's business.
 */
export function flagProblem(flags: string): string | undefined {
  for (const flag of flags) {
    if (!ALLOWED_FLAGS.includes(flag)) return `flag "${flag}" is not supported; use any of i, m, s, u, v`;
  }
  if (new Set(flags).size !== flags.length) return `flags "${flags}" repeat a flag`;
  return undefined;
}

/**
 * A matcher for a regex rule. With a group named `secret`, only that group is hidden (`Bearer (?<secret>…)` keeps
 * the scheme). Zero-length matches hide nothing. Throws SyntaxError for an invalid pattern.
 *
 * @example regexMatcher('aws', '\\bAKIA[0-9A-Z]{16}\\b', '', ['AKIA'])
 */
export function regexMatcher(
  id: string,
  pattern: string,
  flags: string,
  hints: readonly string[],
): ValueMatcher {
  const secretGroup = pattern.includes('(?<secret>');
  const all = `${flags.replace('g', '')}g${secretGroup ? 'd' : ''}`;
  const regex = new RegExp(pattern, all);
  return {
    id,
    hints,
    find(text, found) {
      regex.lastIndex = 0;
      for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
        if (m[0].length === 0) regex.lastIndex += 1;
        if (secretGroup) {
          const span = m.indices?.groups?.secret;
          if (span !== undefined && span[1] > span[0]) found(span[0], span[1]);
        } else if (m[0].length > 0) {
          found(m.index, m.index + m[0].length);
        }
      }
    },
  };
}

const BEGIN = '-----BEGIN ';
const END = '-----END ';
const DASHES = '-----';
/** Longest label between `-----BEGIN ` and `-----` (`ENCRYPTED PRIVATE KEY`, `OPENSSH PRIVATE KEY` …). */
const MAX_LABEL = 64;
const LABEL = /^[A-Z0-9 ]{0,64}PRIVATE KEY$/;

/**
 * The PEM private-key finder: `-----BEGIN <…>PRIVATE KEY-----` through the next `-----END …-----`, or to the end
 * of the value when the block was cut off (a truncated key still leaks most of itself). Every indexOf resumes past
 * the previous one, so the work is linear in the value's length; certificates and public keys are left alone.
 */
export function pemMatcher(id: string): ValueMatcher {
  return {
    id,
    hints: [BEGIN],
    find(text, found) {
      let from = 0;
      for (;;) {
        const begin = text.indexOf(BEGIN, from);
        if (begin < 0) return;
        const labelStart = begin + BEGIN.length;
        const labelEnd = text.indexOf(DASHES, labelStart);
        if (labelEnd < 0) return;
        if (labelEnd - labelStart > MAX_LABEL || !LABEL.test(text.slice(labelStart, labelEnd))) {
          from = labelStart;
          continue;
        }
        const end = text.indexOf(END, labelEnd + DASHES.length);
        const close = end < 0 ? -1 : text.indexOf(DASHES, end + END.length);
        if (close < 0) {
          found(begin, text.length);
          return;
        }
        found(begin, close + DASHES.length);
        from = close + DASHES.length;
      }
    },
  };
}
