import type { CompiledRules } from './compile.js';
import { matchHeaderRule } from './key-words.js';

/**
 * Secrets named in free text: `DB_PASSWORD=…` (environment dumps, query strings, cookies, connection strings,
 * `--opt=NAME=value`), `api_key: …` and `password = …` whose value is the rest of the line (YAML, INI, `.env`, code),
 * `"apiKey": "…"` (JSON or a language's dict in a log line), and header lines (`Cookie:`, `X-Api-Key:`). A pair's
 * value is hidden when its name falls under a key rule (or a header rule) — the same word-wise rules that hide JSON
 * keys — so `max_tokens=5`, `tokenizer: gpt2` and prose with a colon stay as they are.
 */

/** A value to hide: [start, end), the rule that named it, and whether the rule keeps a stable hash. */
export type PairFound = (start: number, end: number, rule: string, hash: boolean) => void;

/** Names are at most this long; a longer run before `=` is data (base64 padding, say), not a name. */
const MAX_NAME = 96;
/** Quoted values are looked for this far; past it the value is taken to be unquoted. */
const MAX_QUOTED = 8192;

function isNameChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 45 ||
    code === 46
  );
}

const isBlank = (code: number): boolean => code === 32 || code === 9;

/** Where an unquoted value ends: whitespace, a separator of query strings, cookies and lists, or a quote. */
function valueEnd(text: string, from: number, toLineEnd: boolean): number {
  let i = from;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 10 || code === 13) break;
    if (!toLineEnd && (code <= 32 || code === 38 || code === 59 || code === 34 || code === 39 || code === 96))
      break;
    if (!toLineEnd && (code === 60 || code === 62)) break;
    i += 1;
  }
  if (toLineEnd) while (i > from && isBlank(text.charCodeAt(i - 1))) i -= 1;
  return i;
}

/**
 * The end of a quoted value opening at `open` (the quote), or -1: backslash escapes are honoured, and an ellipsis
 * (`…`, where a display cut the JSON short) ends it too.
 */
function closingQuote(text: string, open: number, escaped: boolean): number {
  const quote = text[open];
  const limit = Math.min(text.length, open + MAX_QUOTED);
  for (let i = open + 1; i < limit; i += 1) {
    const ch = text[i];
    if (ch === '\n') return -1;
    // An ellipsis: JSON cut short for display, whose value stops here (what follows is the text around it).
    if (ch === '…') return i;
    if (escaped) {
      // Inside JSON that was itself put in a string: the closing quote is `\"`, an escaped backslash `\\\\`.
      if (ch === '\\' && text[i + 1] === '\\') i += 1;
      else if (ch === '\\' && text[i + 1] === quote) return i;
      continue;
    }
    if (ch === '\\') i += 1;
    else if (ch === quote) return i;
  }
  return -1;
}

/** True when only blanks (or a YAML list dash) stand between the start of `at`'s line and `at`. */
function startsLine(text: string, at: number): boolean {
  for (let i = at - 1; i >= 0; i -= 1) {
    const code = text.charCodeAt(i);
    if (code === 10 || code === 13) return true;
    if (!isBlank(code) && code !== 45) return false;
  }
  return true;
}

/**
 * The header rule a `Name:` in text falls under. A rule matching by a word inside names (`key`, `auth`) only takes a
 * hyphenated name, the way headers are written (`X-Api-Key`), or `Cookie`, so a plain word before a colon (`key:`,
 * `api:`) is left to the key rules.
 */
export function headerRuleFor(compiled: CompiledRules, name: string): [string, boolean] | undefined {
  const rule = matchHeaderRule(compiled.headers, name);
  if (rule === undefined) return undefined;
  if (rule.contains && !headerShaped(name.toLowerCase(), rule.name)) return undefined;
  return [rule.id, rule.hash];
}

/**
 * Whether a hyphenated name reads as a credential header rather than a program's log prefix: an `x-` header, or one
 * whose last word holds the credential word (`Api-Key`, `X-Auth-Token`; not `secret-echo:` or `auth-service:`).
 */
function headerShaped(lower: string, word: string): boolean {
  if (lower === 'cookie') return true;
  if (!lower.includes('-')) return false;
  return lower.startsWith('x-') || lower.slice(lower.lastIndexOf('-') + 1).includes(word);
}

/** A pair's rule: its id, whether it keeps a stable hash, and for a key rule the name, whose value may be plain. */
type PairRule = [id: string, hash: boolean, name?: string];

function keyRuleFor(compiled: CompiledRules, name: string): PairRule | undefined {
  const key = compiled.keys.match(name);
  return key === undefined ? undefined : [key, false, name];
}

/** Reports [start, end) under `rule` unless a key rule steps aside for that value (`PWD=/home/me`, plain-values.ts). */
function report(
  text: string,
  start: number,
  end: number,
  compiled: CompiledRules,
  rule: PairRule,
  found: PairFound,
) {
  // A lone `…` is where a display cut the value off: nothing of it is left to hide.
  if (end - start === 1 && text.charCodeAt(start) === 0x2026) return;
  const name = rule[2];
  if (name !== undefined && compiled.keys.matchValue(name, text.slice(start, end)) === undefined) return;
  found(start, end, rule[0], rule[1]);
}

/**
 * How far an unquoted value goes: `token` to the first blank or separator (`NAME=value`), `line` to the end of
 * the line (a header's value), `word` to the end of the line but only when that is one word — `password: hunter2`
 * in a YAML file, not `Password: must be 12 characters` in prose (a trailing ` # comment` does not count).
 */
type ValueExtent = 'token' | 'line' | 'word';

/**
 * True when what follows `at` up to the end of the line only closes what the value sat in (quotes, brackets, a
 * comma, a ` # comment`): the value was the last word of its line.
 */
function restIsClosing(text: string, at: number): boolean {
  for (let i = at; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 10 || code === 13) return true;
    // ` # comment` at the end of a YAML or INI line.
    if (code === 35 && i > at && isBlank(text.charCodeAt(i - 1))) return true;
    // blanks, " ' ` ) ] } , ;
    if (
      !(
        isBlank(code) ||
        code === 34 ||
        code === 39 ||
        code === 96 ||
        code === 41 ||
        code === 93 ||
        code === 125 ||
        code === 44 ||
        code === 59
      )
    )
      return false;
  }
  return true;
}

/**
 * At least 6 characters with a digit, a symbol or a capital after the first: not a word of prose.
 *
 * @example credentialLike('hunter2', 0, 7) // true; credentialLike('Password', 0, 8) // false
 */
export function credentialLike(text: string, start: number, end: number): boolean {
  if (end - start < 6) return false;
  for (let i = start; i < end; i += 1) {
    const code = text.charCodeAt(i);
    const lower = code >= 97 && code <= 122;
    const upper = code >= 65 && code <= 90;
    if (!lower && !(upper && i === start) && !(code === 46 || code === 44 || code === 33 || code === 63))
      return true;
  }
  return false;
}

/** Hides the value starting at `from` (after blanks): quoted, or as far as `extent` says. */
function takeValue(
  text: string,
  from: number,
  extent: ValueExtent,
  found: PairFound,
  rule: PairRule,
  compiled: CompiledRules,
) {
  let start = from;
  while (start < text.length && isBlank(text.charCodeAt(start))) start += 1;
  const first = text[start];
  if (first === '"' || first === "'") {
    const close = closingQuote(text, start, false);
    if (close > start + 1) report(text, start + 1, close, compiled, rule, found);
    if (close >= 0) return;
  }
  const end = valueEnd(text, start, extent === 'line');
  // Words follow: a value that reads like a word (`Password: must be 12 characters`) is prose, one with a digit,
  // a symbol or inner capitals (`password: hunter2 was rejected`) is still a credential.
  if (extent === 'word' && !restIsClosing(text, end) && !credentialLike(text, start, end)) return;
  if (end > start) report(text, start, end, compiled, rule, found);
}

function equalsPairs(text: string, compiled: CompiledRules, found: PairFound): void {
  for (let eq = text.indexOf('='); eq >= 0; eq = text.indexOf('=', eq + 1)) {
    // `a == b`, `=>`, base64 padding: not an assignment.
    const after = text.charCodeAt(eq + 1);
    if (after === 61 || after === 62 || text.charCodeAt(eq - 1) === 61) continue;
    let nameEnd = eq;
    while (nameEnd > 0 && isBlank(text.charCodeAt(nameEnd - 1))) nameEnd -= 1;
    let start = nameEnd;
    while (start > 0 && nameEnd - start <= MAX_NAME && isNameChar(text.charCodeAt(start - 1))) start -= 1;
    if (start === nameEnd || nameEnd - start > MAX_NAME) continue;
    // `password = hunter2` (INI, TOML, code): the value must then be the rest of its line, one word or quoted, so
    // `x = y + z` in prose is not taken for one.
    const spaced = nameEnd < eq;
    // `NAME= value` is an empty value followed by words, not a value.
    if (!spaced && isBlank(after)) continue;
    const rule = keyRuleFor(compiled, text.slice(start, nameEnd));
    if (rule !== undefined) takeValue(text, eq + 1, spaced ? 'word' : 'token', found, rule, compiled);
  }
}

function colonPairs(text: string, compiled: CompiledRules, found: PairFound): void {
  // The last name looked up and its rules: prose and logs repeat the same `name:` over and over, and a name compared
  // in place costs no slice and no cache lookup. Its header rule (null: not looked up yet) is looked up when the
  // name first stands where a header's would, and a name found under none is not looked at as a header again.
  let lastName = '';
  let lastKey: PairRule | undefined;
  let lastHeader: [string, boolean] | undefined | null = null;
  for (let colon = text.indexOf(':'); colon >= 0; colon = text.indexOf(':', colon + 1)) {
    if (text.charCodeAt(colon + 1) === 47 && text.charCodeAt(colon + 2) === 47) continue;
    let nameEnd = colon;
    while (nameEnd > 0 && isBlank(text.charCodeAt(nameEnd - 1))) nameEnd -= 1;
    const quote = text[nameEnd - 1];
    if (quote === '"' || quote === "'") {
      quotedPair(text, compiled, found, colon, nameEnd - 1);
      continue;
    }
    let start = nameEnd;
    let hyphen = false;
    while (start > 0 && nameEnd - start <= MAX_NAME && isNameChar(text.charCodeAt(start - 1))) {
      start -= 1;
      if (text.charCodeAt(start) === 45) hyphen = true;
    }
    if (start === nameEnd || nameEnd - start > MAX_NAME || nameEnd < colon) continue;
    // `arn:aws:secretsmanager:…:secret:prod/db-AbCdEf`: a resource type in a name, not a `name: value` pair.
    if (text.charCodeAt(start - 1) === 58 && inResourceName(text, start)) continue;
    if (nameEnd - start !== lastName.length || !text.startsWith(lastName, start)) {
      lastName = text.slice(start, nameEnd);
      lastKey = keyRuleFor(compiled, lastName);
      lastHeader = null;
    }
    // A header's whole value: at the start of a line, or inside one for a header name (hyphenated, or `Cookie`).
    if (lastHeader !== undefined) {
      const first = text.charCodeAt(start) | 0x20;
      const cookie = lastName.length === 6 && lastName.toLowerCase() === 'cookie';
      const headerLike = cookie || (hyphen && first >= 97 && first <= 122);
      if (headerLike || startsLine(text, start)) {
        lastHeader ??= headerRuleFor(compiled, lastName);
        if (lastHeader !== undefined) {
          takeValue(text, colon + 1, 'line', found, lastHeader, compiled);
          continue;
        }
      }
    }
    // A secret-named key's value when it is the rest of its line, one word or quoted: `password: hunter2`, not
    // `Password: must be 12 characters`.
    if (lastKey !== undefined) takeValue(text, colon + 1, 'word', found, lastKey, compiled);
  }
}

/** A JSON number or boolean, as the value of a quoted name: ends at what may follow it in JSON. */
const LITERAL = /^(?:-?[0-9][0-9.eE+-]{0,39}|true|false)(?=\s|[,}\]]|\\|$)/;
const MAX_LITERAL = 40;

/** How far back the start of a colon-separated resource name is looked for. */
const MAX_RESOURCE_PREFIX = 256;

/** True when the word at `at`, right after a colon, belongs to an `arn:` or `urn:` name (no blank in between). */
function inResourceName(text: string, at: number): boolean {
  const from = Math.max(0, at - MAX_RESOURCE_PREFIX);
  let i = at;
  while (i > from) {
    const code = text.charCodeAt(i - 1);
    if (code <= 32 || code === 34 || code === 39 || code === 40 || code === 61 || code === 44) break;
    i -= 1;
  }
  const head = text.slice(i, i + 4).toLowerCase();
  return head === 'arn:' || head === 'urn:';
}

/** `"name": "value"` (or `'name': 'value'`, or `\"name\":\"value\"` inside JSON put in a string). */
function quotedPair(text: string, compiled: CompiledRules, found: PairFound, colon: number, close: number) {
  const quote = text[close]!;
  const escaped = text[close - 1] === '\\';
  const nameEnd = escaped ? close - 1 : close;
  let open = nameEnd - 1;
  while (open >= 0 && nameEnd - open <= MAX_NAME && text[open] !== quote && text[open] !== '\n') open -= 1;
  if (open < 0 || text[open] !== quote || (escaped && text[open - 1] !== '\\')) return;
  const rule = keyRuleFor(compiled, text.slice(open + 1, nameEnd));
  if (rule === undefined) return;
  let start = colon + 1;
  while (start < text.length && isBlank(text.charCodeAt(start))) start += 1;
  const literal = LITERAL.exec(text.slice(start, start + MAX_LITERAL + 1));
  if (literal !== null) {
    // `"password": 123456` in a log line: a number or a boolean is hidden as it is in JSON.
    const name = rule[2]!;
    const token = literal[0];
    const value = token === 'true' ? true : token === 'false' ? false : Number(token);
    if (compiled.keys.matchValue(name, value) !== undefined)
      found(start, start + token.length, rule[0], rule[1]);
    return;
  }
  if (escaped) {
    if (text[start] !== '\\' || text[start + 1] !== quote) return;
    const end = closingQuote(text, start + 1, true);
    if (end > start + 2) report(text, start + 2, end, compiled, rule, found);
    return;
  }
  if (text[start] !== '"' && text[start] !== "'") return;
  const end = closingQuote(text, start, false);
  if (end > start + 1) report(text, start + 1, end, compiled, rule, found);
}

/**
 * Calls `found` for the value of every secret-named pair in `text`. Linear: each `=` and `:` is looked at once,
 * names are bounded, and a value ends at its line.
 *
 * @example findPairs('DB_PASSWORD=hunter2 PORT=5432', compiled, undefined, (s, e, rule) => …) // (12, 19, 'password')
 */
export function findPairs(
  text: string,
  compiled: CompiledRules,
  /** Which of `=` and `:` the text holds, when already known (a long value's sweep found out). */
  holds: readonly string[] | undefined,
  found: PairFound,
): void {
  if (compiled.keys.rules.length === 0 && compiled.headers.length === 0) return;
  if (holds === undefined ? text.includes('=') : holds.includes('=')) equalsPairs(text, compiled, found);
  if (holds === undefined ? text.includes(':') : holds.includes(':')) colonPairs(text, compiled, found);
  // Prose has blanks; an identifier or a token alone, most strings a message holds, has none and skips the pattern.
  if (text.length < PROSE_LIMIT && hasBlank(text) && PASSWORD_WORD.test(text))
    spacedPairs(text, compiled, found);
}

function hasBlank(text: string): boolean {
  return text.includes(' ') || text.includes('\t');
}

/** The words that open `password hunter2` in prose, looked for in one pass before the full pattern runs. */
const PASSWORD_WORD = /ass(?:word|wd|phrase)|ASS(?:WORD|WD|PHRASE)/;
/** A password word, one or two blanks, and the word after it (bounded: linear). */
const SPACED = /\b((?:[Pp]ass(?:word|wd|phrase)|PASS(?:WORD|WD|PHRASE)))[ \t]{1,2}([^\s"'`,;)\]}<>]{6,256})/g;
/** Longer values are data, not a sentence that names a password. */
const PROSE_LIMIT = 1 << 16;

/**
 * `password Tr0ub4dor&3` in prose (`login failed for ada (password hunter2!)`): the word after a password word when
 * it reads as a credential — a digit or a symbol in it — not as the next word of a sentence (`password reset`,
 * `password must be…`).
 */
function spacedPairs(text: string, compiled: CompiledRules, found: PairFound): void {
  SPACED.lastIndex = 0;
  for (let m = SPACED.exec(text); m !== null; m = SPACED.exec(text)) {
    const value = m[2]!;
    if (!/[0-9!#$%&*+/=?@^_~-]/.test(value) || !credentialLike(value, 0, value.length)) continue;
    const rule = keyRuleFor(compiled, m[1]!);
    if (rule === undefined) continue;
    const start = m.index + m[0].length - value.length;
    report(text, start, start + value.length, compiled, rule, found);
  }
}
