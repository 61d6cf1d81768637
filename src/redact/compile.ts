import { TapedeckError } from '../base/errors.js';
import { DEFAULT_RULES } from './defaults.js';
import { EVENT_ID_HEADER, SESSION_HEADER } from './headers.js';
import { HintPlan } from './hints.js';
import { type PathSegment, parsePath } from './jsonpath.js';
import { type CompiledHeaderRule, type CompiledKeyRule, KeyMatcher, splitKeyWords } from './key-words.js';
import { type MarkerStyle, RULE_ID } from './marker.js';
import { flagProblem, pemMatcher, regexMatcher, type ValueMatcher } from './patterns.js';
import { regexHazard } from './regex-safety.js';
import { sha256Hex } from './sha256.js';
import type { RedactConfig, RedactionSummary, RedactMode, RedactRule, ValueHasher } from './types.js';

/**
 * A redaction setup checked and made ready to run. Build it once with {@link compile}; it is safe to share. Users
 * hand it to the redaction functions; the matchers it holds are the engine's own (marked internal).
 */
export interface CompiledRules {
  readonly style: MarkerStyle;
  /** @internal */
  readonly keys: KeyMatcher;
  /** @internal */
  readonly headers: readonly CompiledHeaderRule[];
  /** @internal */
  readonly paths: readonly (readonly PathSegment[])[];
  /** @internal */
  readonly pathIds: readonly string[];
  /** @internal */
  readonly values: readonly ValueMatcher[];
  /**
   * The hints of every value matcher, ready to look for.
   * @internal
   */
  readonly hints: HintPlan;
  /**
   * The value matchers a text without a token run can match (not gated by one), in order, and their hints.
   * @internal
   */
  readonly free: { readonly order: readonly number[]; readonly hints: HintPlan };
  /**
   * The id of the rule that keeps the MCP session id as a stable hash, when one applies: the same hash then stands
   * for that id wherever it shows up (the header, `conn`, the `session` event, a legacy `sessionId` parameter).
   */
  readonly session: string | undefined;
  /** The id of the rule that keeps SSE event ids (the `Last-Event-ID` header, a message's `eventId`) as a stable hash. */
  readonly eventIds: string | undefined;
  /** The keyed hash `hash` header rules and the session use: the injected one, else an unkeyed SHA-256. */
  readonly stableHash: ValueHasher;
  readonly summary: RedactionSummary;
  /** Short strings lately found to hold nothing to hide (tool names, enum values …), so they are not scanned again. */
  readonly clean: Set<string>;
}

export interface CompileOptions {
  /**
   * Keyed hash for `hash` mode (HMAC-SHA256 hex with a per-install key); required in that mode. In `marker` mode it
   * serves the rules that keep a stable hash (the MCP session id); without it those use plain SHA-256.
   */
  hasher?: ValueHasher;
}

const RULE_TYPES = ['key', 'path', 'regex', 'header', 'pem'] as const;
const MODES: readonly RedactMode[] = ['marker', 'hash'];

/**
 * What a trace's meta line may record about a setup: never the rules' contents.
 *
 * @example summarize({ defaults: true, rules: [{ type: 'key', name: 'tenant' }], mode: 'hash' }) // { defaults: true, customRules: 1, mode: 'hash' }
 */
export function summarize(config: RedactConfig): RedactionSummary {
  return { defaults: config.defaults, customRules: config.rules.length, mode: config.mode };
}

/**
 * Checks every rule and prepares it. A bad rule throws a TapedeckError (code `input`) naming the rule as
 * `rules[i]` and the problem: an invalid regex, a malformed JSONPath, an unknown type, a missing field.
 *
 * @example compile({ defaults: true, rules: [{ type: 'path', path: '$..api_key' }], mode: 'marker' })
 */
export function compile(config: RedactConfig, options: CompileOptions = {}): CompiledRules {
  if (!MODES.includes(config.mode)) {
    throw new TapedeckError(
      'input',
      `redaction mode ${JSON.stringify(config.mode)} is not valid; use marker or hash`,
    );
  }
  if (!Array.isArray(config.rules)) {
    throw new TapedeckError('input', 'redaction rules must be a list (`"rules": [...]`)');
  }
  if (config.mode === 'hash' && options.hasher === undefined) {
    throw new TapedeckError(
      'input',
      'redaction mode "hash" needs a value hasher (the keyed HMAC); pass one or use mode "marker"',
    );
  }
  const keys: CompiledKeyRule[] = [];
  const headers: CompiledHeaderRule[] = [];
  const paths: PathSegment[][] = [];
  const pathIds: string[] = [];
  const values: ValueMatcher[] = [];
  let session: string | undefined;
  let eventIds: string | undefined;
  const all = [
    ...(config.defaults ? DEFAULT_RULES.map((rule, i) => ({ rule, where: `defaults[${i}]` })) : []),
    ...config.rules.map((rule, i) => ({ rule, where: `rules[${i}]` })),
  ];
  for (const { rule, where } of all) {
    const named =
      typeof rule === 'object' && rule !== null && typeof rule.id === 'string' && RULE_ID.test(rule.id)
        ? ` (${rule.id})`
        : '';
    const fail = (problem: string) =>
      new TapedeckError('input', `redaction rule ${where}${named}: ${problem}`);
    if (typeof rule !== 'object' || rule === null) throw fail('expected an object like {"type": "key", ...}');
    const id = ruleId(rule, fail);
    switch (rule.type) {
      case 'key': {
        const joined = wordsOf(rule.name, 'name', fail);
        if (rule.exclude !== undefined && !isStringList(rule.exclude))
          throw fail('"exclude" must be a list of keys');
        const exclude = new Set((rule.exclude ?? []).map((key) => splitKeyWords(key).join('')));
        if (exclude.has(joined)) {
          throw fail(`it matches nothing: "exclude" lists its own name ${JSON.stringify(rule.name)}`);
        }
        keys.push({ id, joined, exclude, builtin: where.startsWith('defaults') });
        break;
      }
      case 'header': {
        if (typeof rule.name !== 'string' || rule.name.trim() === '')
          throw fail('"name" must be a header name');
        if (rule.exclude !== undefined && !isStringList(rule.exclude))
          throw fail('"exclude" must be a list of header names');
        const name = rule.name.trim().toLowerCase();
        const exclude = new Set((rule.exclude ?? []).map((header) => header.trim().toLowerCase()));
        if (exclude.has(name))
          throw fail(`it matches nothing: "exclude" lists its own name ${JSON.stringify(name)}`);
        const hash = rule.hash === true;
        headers.push({ id, name, contains: rule.contains === true, exclude, hash });
        if (
          hash &&
          session === undefined &&
          (rule.contains === true ? SESSION_HEADER.includes(name) : name === SESSION_HEADER)
        )
          session = id;
        if (hash && eventIds === undefined && rule.contains !== true && name === EVENT_ID_HEADER)
          eventIds = id;
        break;
      }
      case 'path':
        if (typeof rule.path !== 'string')
          throw fail('"path" must be a JSONPath string such as "$..api_key"');
        try {
          paths.push(parsePath(rule.path));
        } catch (err) {
          throw fail((err as Error).message);
        }
        pathIds.push(id);
        break;
      case 'regex':
        values.push(compileRegex(rule, id, fail));
        break;
      case 'pem':
        values.push(pemMatcher(id));
        break;
      default:
        throw fail(
          `type ${JSON.stringify((rule as { type?: unknown }).type)} is not known; use one of ${RULE_TYPES.join(', ')}`,
        );
    }
  }
  return {
    style: { mode: config.mode, hasher: options.hasher },
    keys: new KeyMatcher(keys),
    headers,
    paths,
    pathIds,
    values,
    hints: new HintPlan(values.flatMap((matcher) => matcher.hints)),
    free: {
      order: values.flatMap((matcher, i) => (matcher.gated ? [] : [i])),
      hints: new HintPlan(values.filter((m) => !m.gated).flatMap((matcher) => matcher.hints)),
    },
    session,
    eventIds,
    stableHash: options.hasher ?? sha256Hex,
    summary: summarize(config),
    clean: new Set(),
  };
}

type Fail = (problem: string) => TapedeckError;

function compileRegex(rule: Extract<RedactRule, { type: 'regex' }>, id: string, fail: Fail): ValueMatcher {
  if (typeof rule.pattern !== 'string' || rule.pattern === '')
    throw fail('"pattern" must be a non-empty string');
  const flags = rule.flags ?? '';
  const problem = typeof flags === 'string' ? flagProblem(flags) : '"flags" must be a string';
  if (problem !== undefined) throw fail(problem);
  if (rule.hints !== undefined && (!isStringList(rule.hints) || rule.hints.some((hint) => hint === ''))) {
    throw fail('"hints" must be a list of non-empty strings');
  }
  const minRun = rule.minRun ?? 0;
  if (!Number.isInteger(minRun) || minRun < 0 || minRun > 4096) {
    throw fail('"minRun" must be a whole number from 0 to 4096 (the token run every match holds)');
  }
  let matcher: ValueMatcher;
  try {
    matcher = regexMatcher(id, rule.pattern, flags, rule.hints ?? [], minRun);
  } catch (err) {
    throw fail(`invalid regular expression ${JSON.stringify(rule.pattern)}: ${(err as Error).message}`);
  }
  const hazard = regexHazard(rule.pattern, flags);
  if (hazard !== undefined) {
    throw fail(`pattern ${JSON.stringify(rule.pattern)} at position ${hazard.position}: ${hazard.problem}`);
  }
  return matcher;
}

function wordsOf(name: unknown, field: string, fail: Fail): string {
  const joined = typeof name === 'string' ? splitKeyWords(name).join('') : '';
  if (joined === '') throw fail(`"${field}" must be a key name with at least one letter or digit`);
  return joined;
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** The rule's id, or one derived from it: `api_key` → `api-key`, `$..client_secret` → `client_secret`. */
function ruleId(rule: RedactRule, fail: Fail): string {
  if (rule.id !== undefined) {
    if (typeof rule.id !== 'string' || !RULE_ID.test(rule.id)) {
      throw fail(
        `id ${JSON.stringify(rule.id)} is not valid; use letters, digits, "_", "." and "-" (at most 64)`,
      );
    }
    return rule.id;
  }
  let derived = '';
  if (rule.type === 'key' && typeof rule.name === 'string') derived = splitKeyWords(rule.name).join('-');
  else if (rule.type === 'header' && typeof rule.name === 'string')
    derived = `${rule.name.toLowerCase()}-header`;
  else if (rule.type === 'path' && typeof rule.path === 'string') derived = lastName(rule.path);
  else if (rule.type === 'pem') derived = 'private-key-pem';
  else derived = String(rule.type);
  const safe = derived
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64);
  return RULE_ID.test(safe) ? safe : 'custom';
}

function lastName(path: string): string {
  try {
    const named = parsePath(path).filter((segment) => segment.selector.kind === 'name');
    const last = named.at(-1)?.selector;
    return last?.kind === 'name' ? last.name : 'path';
  } catch {
    return 'path';
  }
}
