/**
 * Matching names: JSON keys (and flag / variable names) by words, HTTP header names by text. Word matching is what
 * lets `token` hide `accessToken` and `x-auth-token` but not `max_tokens` or `tokenizer`.
 */

import { plainUnder } from './plain-values.js';

const UPPER_A = 65;
const UPPER_Z = 90;
const LOWER_A = 97;
const LOWER_Z = 122;
const DIGIT_0 = 48;
const DIGIT_9 = 57;

type CharKind = 'upper' | 'lower' | 'digit' | 'separator';

function kindOf(code: number): CharKind {
  if (code >= LOWER_A && code <= LOWER_Z) return 'lower';
  if (code >= UPPER_A && code <= UPPER_Z) return 'upper';
  if (code >= DIGIT_0 && code <= DIGIT_9) return 'digit';
  // Non-ASCII letters belong to words (`contraseña`); ASCII punctuation and spaces separate them.
  return code > 127 ? 'lower' : 'separator';
}

/**
 * Splits a key into lowercase words across camelCase, PascalCase, acronyms, snake_case, kebab-case, dots and
 * spaces. Digits stay with the letters before them (`oauth2Token` → `oauth2`, `token`).
 *
 * @example splitKeyWords('x-APIKey_value') // ['x', 'api', 'key', 'value']
 */
export function splitKeyWords(key: string): string[] {
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i < key.length; i += 1) {
    const kind = kindOf(key.charCodeAt(i));
    if (kind === 'separator') {
      if (start >= 0) words.push(key.slice(start, i).toLowerCase());
      start = -1;
      continue;
    }
    if (start < 0) {
      start = i;
      continue;
    }
    if (kind !== 'upper') continue;
    const prev = kindOf(key.charCodeAt(i - 1));
    // `accessToken`, `s3Bucket`: a capital after a small letter or digit starts a word. `APIKey`: the last capital
    // of a run starts a word when a small letter follows it.
    const startsWord =
      prev === 'lower' ||
      prev === 'digit' ||
      (prev === 'upper' && i + 1 < key.length && kindOf(key.charCodeAt(i + 1)) === 'lower');
    if (startsWord) {
      words.push(key.slice(start, i).toLowerCase());
      start = i;
    }
  }
  if (start >= 0) words.push(key.slice(start).toLowerCase());
  return words;
}

/** A key rule ready to match: its words run together, and the whole keys (run together too) it never matches. */
export interface CompiledKeyRule {
  id: string;
  joined: string;
  exclude: ReadonlySet<string>;
  /** A built-in rule, which steps aside for values that are plainly no secret (plain-values.ts); a user's never does. */
  builtin: boolean;
}

/**
 * Where the first run of adjacent `words`, run together, spells `joined` (so `api_key`, `apiKey`, `apikey` all hit):
 * the index of the word after the run, or -1.
 */
function runEnd(words: readonly string[], joined: string): number {
  for (let i = 0; i < words.length; i += 1) {
    let run = '';
    for (let j = i; j < words.length && run.length < joined.length; j += 1) {
      run += words[j];
      if (!joined.startsWith(run)) break;
      if (run === joined) return j + 1;
    }
  }
  return -1;
}

/** How a key matched: the rule, the key's words, and the index of the word after the rule's own. */
interface KeyMatch {
  rule: CompiledKeyRule;
  words: readonly string[];
  end: number;
}

/** Past this many distinct keys the cache starts over: bounded memory whatever a server sends. */
const CACHE_LIMIT = 10_000;

/**
 * Decides which key rule (if any) a key falls under. Keys repeat endlessly in a session (`jsonrpc`, `id`,
 * `params` …), so answers are cached — in a Map, never an object, so `__proto__` is just another key.
 */
export class KeyMatcher {
  private readonly cache = new Map<string, KeyMatch | null>();

  constructor(readonly rules: readonly CompiledKeyRule[]) {}

  private find(key: string): KeyMatch | undefined {
    if (this.rules.length === 0) return undefined;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const words = splitKeyWords(key);
    const whole = words.join('');
    let found: KeyMatch | null = null;
    for (const rule of this.rules) {
      if (rule.exclude.has(whole)) continue;
      const end = runEnd(words, rule.joined);
      if (end >= 0) {
        found = { rule, words, end };
        break;
      }
    }
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(key, found);
    return found ?? undefined;
  }

  /** The id of the first rule `key` falls under, or undefined. */
  match(key: string): string | undefined {
    return this.find(key)?.rule.id;
  }

  /**
   * The id of the first rule `key` falls under when `value` is to be hidden under it: a built-in rule steps aside
   * for a value that is plainly no secret under that name (`PWD=/home/me`, `AUTH_ENABLED=true`, `token_count: 317`)
   * and for a name about the secret rather than the secret (`password_policy`, `token_usage`); see plain-values.ts.
   *
   * @example matcher.matchValue('PWD', '/home/me/project') // undefined; matcher.matchValue('db_pwd', 'hunter2') // 'pwd'
   */
  matchValue(key: string, value: unknown): string | undefined {
    const found = this.find(key);
    if (found === undefined) return undefined;
    if (found.rule.builtin && plainUnder(found.words, found.end, value)) return undefined;
    return found.rule.id;
  }
}

/** A header rule ready to match: the lowercase name, exact or contained. */
export interface CompiledHeaderRule {
  id: string;
  name: string;
  contains: boolean;
  /** Whole lowercase names the rule never matches. */
  exclude: ReadonlySet<string>;
  /** Hide as a stable hash rather than a marker. */
  hash: boolean;
}

/** The first header rule `name` falls under (case-insensitive), or undefined. */
export function matchHeaderRule(
  rules: readonly CompiledHeaderRule[],
  name: string,
): CompiledHeaderRule | undefined {
  if (rules.length === 0) return undefined;
  const lower = name.trim().toLowerCase();
  for (const rule of rules) {
    if ((rule.contains ? lower.includes(rule.name) : lower === rule.name) && !rule.exclude.has(lower))
      return rule;
  }
  return undefined;
}

/** The id of the first header rule `name` falls under (case-insensitive), or undefined. */
export function matchHeader(rules: readonly CompiledHeaderRule[], name: string): string | undefined {
  return matchHeaderRule(rules, name)?.id;
}
