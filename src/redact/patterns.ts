/**
 * Value matchers: what runs on every string value. A regex rule or the PEM block finder, behind one shape, so the
 * engine only deals with [start, end) spans to hide.
 */

/** Finds the parts of a string a rule hides. */
export interface ValueMatcher {
  readonly id: string;
  /** Literals of which every match holds one; a value with none is skipped before `find` runs. Empty = always run. */
  readonly hints: readonly string[];
  /** Every match holds a run of at least {@link RUN_GATE} token characters: text without one is skipped. */
  readonly gated: boolean;
  /** Calls `found` with the [start, end) of every part of `text` to hide, in order. */
  find(text: string, found: (start: number, end: number) => void): void;
}

/** The run of token characters (`A-Z a-z 0-9 _ -`) a rule's `minRun` must reach for the rule to be gated by it. */
export const RUN_GATE = 16;

/** 1 for the characters a token run is made of (ASCII letters, digits, `_` and `-`), by UTF-16 code: one load a test. */
const TOKEN_CHAR = new Uint8Array(0x10000);
for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-')
  TOKEN_CHAR[ch.charCodeAt(0)] = 1;

/**
 * Whether `text` holds a run of at least `length` token characters. A window of `length` characters is read from its
 * end backwards: the first character that is no token character moves the window past it, and characters already
 * read are never read again — prose, whose words are short, costs a fraction of a pass.
 *
 * @example hasTokenRun('the EMEA summary, two-sentence notes', 16) // false
 */
export function hasTokenRun(text: string, length: number): boolean {
  const n = text.length;
  let start = 0;
  // [start, known) are token characters, read already.
  let known = 0;
  while (start + length <= n) {
    let i = start + length - 1;
    while (i >= known && TOKEN_CHAR[text.charCodeAt(i)] === 1) i -= 1;
    if (i < known) return true;
    known = start + length;
    start = i + 1;
  }
  return false;
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
  minRun = 0,
): ValueMatcher {
  const secretGroup = pattern.includes('(?<secret>');
  const all = `${flags.replace('g', '')}g${secretGroup ? 'd' : ''}`;
  const regex = new RegExp(pattern, all);
  return {
    id,
    hints,
    gated: minRun >= RUN_GATE,
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
const LABEL = /^[A-Z0-9 ]{0,64}PRIVATE KEY(?: BLOCK)?$/;

/**
 * The PEM private-key finder (PGP's `PRIVATE KEY BLOCK` armor too): `-----BEGIN <…>PRIVATE KEY-----` through the next `-----END …-----`, or to the end
 * of the value when the block was cut off (a truncated key still leaks most of itself). Every indexOf resumes past
 * the previous one, so the work is linear in the value's length; certificates and public keys are left alone.
 */
export function pemMatcher(id: string): ValueMatcher {
  return {
    id,
    hints: [BEGIN],
    gated: false,
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
