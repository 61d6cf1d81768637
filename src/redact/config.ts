import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { TapedeckError } from '../base/errors.js';
import { projectRedactPath, userRedactPath } from '../base/paths.js';
import { compile } from './compile.js';
import { RULE_ID } from './marker.js';
import type { HeaderRule, RedactConfig, RedactMode, RedactRule, RegexRule } from './types.js';

/**
 * Loading redaction setups from files, the environment and flags: the one place in src/redact that does I/O.
 * Every source is validated before anything runs, and a bad one fails with one line naming the file, the rule and
 * the problem, so a recorder never starts with fewer rules than its user meant.
 */

export const REDACT_MODES: readonly RedactMode[] = ['marker', 'hash'];

/** One redact config file: `{"extends": "default" | null, "rules": [...]}` (mcp-tape's redact.json as is). */
export interface RedactFile {
  /**
   * `null` asks for the built-in rules to be off (only these rules); absent means `"default"`. Only a file the user
   * owns or named on the command line is heard on that: see {@link loadRedactConfig}.
   */
  extends: 'default' | null;
  rules: RedactRule[];
}

/**
 * Where a config file came from, which decides whether its `"extends": null` is heard: the user's own config and a
 * `--redact-file` named on the command line may replace the built-in rules; a project's file (found in the folder
 * tapedeck runs in, so a cloned repository can put one there) and the file `$TAPEDECK_REDACT` names (an MCP client's
 * config can set a wrapped server's environment) only add rules.
 */
export type RedactSource = 'user' | 'project' | 'environment' | 'flag';

/** The sources whose `"extends": null` turns the built-in rules off. */
const MAY_REPLACE_DEFAULTS: ReadonlySet<RedactSource> = new Set(['user', 'flag']);

/** What the command line adds to the files that are read anyway. */
export interface RedactFlags {
  /** `--redact RE`, each a regex rule. */
  patterns?: readonly string[];
  /** `--redact-file PATH`, read after the automatic sources. */
  files?: readonly string[];
  /** `false` with `--no-redact-defaults`. */
  defaults?: boolean;
  mode?: RedactMode;
}

/** Where the automatic sources are looked for; injectable so tests never read the real home. */
export interface RedactEnvironment {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  home?: string;
}

export interface LoadedRedactConfig {
  config: RedactConfig;
  /** The files that were read, in the order their rules apply. */
  files: string[];
  /**
   * One line for stderr when the built-in rules are off (and what turned them off), or when a file that may not
   * turn them off asked to; undefined otherwise. Callers print it (`tapedeck: …`), so turning redaction down never
   * goes unsaid.
   */
  notice: string | undefined;
}

const TYPE_FIELDS: Record<RedactRule['type'], readonly string[]> = {
  key: ['name', 'exclude'],
  path: ['path'],
  regex: ['pattern', 'flags', 'hints', 'minRun'],
  header: ['name', 'contains', 'exclude', 'hash'],
  pem: [],
};
const COMMON_FIELDS = ['type', 'id', 'description'];

/**
 * Combines every source into one RedactConfig. Rules apply in this order: the user config, the project config,
 * the `TAPEDECK_REDACT` file, each `--redact-file`, then each `--redact` pattern. The two automatic files are
 * optional; a file named by the environment or a flag must exist. Built-in rules stay on unless `flags.defaults`
 * is false (`--no-redact-defaults`) or the user's own config or a `--redact-file` says `"extends": null`; a project
 * file or the `TAPEDECK_REDACT` file saying so still adds its rules, and `notice` says the built-in ones stayed.
 * Throws TapedeckError('usage') naming the file, rule and problem.
 *
 * @example const { config } = loadRedactConfig({ patterns: ['\\bACME-[0-9]{8}\\b'], mode: 'hash' });
 */
export function loadRedactConfig(flags: RedactFlags = {}, where: RedactEnvironment = {}): LoadedRedactConfig {
  const env = where.env ?? process.env;
  const cwd = where.cwd ?? process.cwd();
  const sources: { path: string; required: boolean; source: RedactSource }[] = [
    { path: userRedactPath(env, where.home ?? homedir()), required: false, source: 'user' },
    { path: projectRedactPath(cwd), required: false, source: 'project' },
  ];
  if (env.TAPEDECK_REDACT !== undefined && env.TAPEDECK_REDACT !== '') {
    sources.push({ path: resolve(cwd, env.TAPEDECK_REDACT), required: true, source: 'environment' });
  }
  for (const file of flags.files ?? []) {
    sources.push({ path: resolve(cwd, file), required: true, source: 'flag' });
  }
  let offBy: string | undefined = flags.defaults === false ? '--no-redact-defaults' : undefined;
  let refused: string | undefined;
  const rules: RedactRule[] = [];
  const files: string[] = [];
  const seen = new Map<string, RedactSource>();
  for (const { path, required, source } of sources) {
    // The same file reached twice (TAPEDECK_REDACT naming the project file) must not double its rules; reached
    // through a flag as well, it counts as named on the command line.
    const earlier = seen.get(path);
    if (earlier !== undefined) {
      if (MAY_REPLACE_DEFAULTS.has(source) && !MAY_REPLACE_DEFAULTS.has(earlier) && refused === path) {
        offBy ??= path;
        refused = undefined;
      }
      continue;
    }
    seen.set(path, source);
    const text = readConfigText(path, required);
    if (text === undefined) continue;
    const file = parseRedactFile(text, path);
    if (file.extends === null) {
      if (MAY_REPLACE_DEFAULTS.has(source)) offBy ??= path;
      else refused ??= path;
    }
    rules.push(...file.rules);
    files.push(path);
  }
  for (const pattern of flags.patterns ?? []) rules.push(patternRule('--redact', pattern));
  const defaults = offBy === undefined;
  return {
    config: { defaults, rules, mode: flags.mode ?? 'marker' },
    files,
    notice: defaultsNotice(offBy, refused),
  };
}

/** The one line said about the built-in rules: off, and by what; or kept on although a file asked otherwise. */
function defaultsNotice(offBy: string | undefined, refused: string | undefined): string | undefined {
  if (offBy !== undefined) {
    const by = offBy === '--no-redact-defaults' ? offBy : `"extends": null in ${offBy}`;
    return `the built-in redaction rules are off (${by}): only your own rules hide secrets`;
  }
  if (refused !== undefined)
    return (
      `${refused} says "extends": null, but only your own config or --no-redact-defaults can turn the built-in ` +
      'redaction rules off: they stay on, and its rules are added'
    );
  return undefined;
}

/**
 * Parses and validates the text of a redact config file; `source` names it in errors.
 *
 * @example parseRedactFile('{"rules":[{"type":"path","path":"$..api_key"}]}', 'redact.json').extends === 'default'
 */
export function parseRedactFile(text: string, source: string): RedactFile {
  const fail = (problem: string) => new TapedeckError('usage', `redact config ${source}: ${problem}`);
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw fail(describeJsonError(text.replace(/^\uFEFF/, ''), err));
  }
  if (!isObject(data)) throw fail(`expected a JSON object like {"rules": [...]}; got ${kind(data)}`);
  for (const key of Object.keys(data)) {
    if (key !== 'extends' && key !== 'rules' && !key.startsWith('$')) {
      throw fail(`unknown field "${key}"; a redact config has "extends" and "rules"`);
    }
  }
  const ext = data.extends;
  if (ext !== undefined && ext !== null && ext !== 'default') {
    throw fail(
      `"extends" must be "default" (built-in rules plus these) or null (only these); got ${JSON.stringify(ext)}`,
    );
  }
  const list = data.rules ?? [];
  if (!Array.isArray(list)) throw fail(`"rules" must be an array; got ${kind(list)}`);
  const rules = list.map((raw: unknown, index) => {
    try {
      return validateRule(raw);
    } catch (err) {
      throw fail(`rules[${index}]${idOf(raw)}: ${(err as Error).message}`);
    }
  });
  checkCompiles(rules, (index, problem) => fail(`rules[${index}]${idOf(rules[index])}: ${problem}`));
  return { extends: ext === null ? null : 'default', rules };
}

/**
 * Validates a `--redact` value as the engine will compile it; throws a usage error naming the flag and the regex.
 *
 * @example patternRule('--redact', '\\bACME-[0-9]{8}\\b') // → { type: 'regex', pattern: '\\bACME-[0-9]{8}\\b' }
 */
export function patternRule(flag: string, pattern: string): RedactRule {
  const rule: RedactRule = { type: 'regex', pattern };
  const fail = (problem: string) =>
    new TapedeckError('usage', `${flag} '${pattern}' is not a valid regular expression: ${problem}`);
  if (pattern === '') throw fail('it is empty, and would match everywhere');
  checkCompiles([rule], (_index, problem) => {
    // The engine refuses patterns that can backtrack without bound: "pattern "…" at position 4: …".
    const hazard = /^pattern ".*" (at position \d+: .+)$/s.exec(problem)?.[1];
    if (hazard !== undefined) return new TapedeckError('usage', `${flag} '${pattern}' ${hazard}`);
    // V8 words it "Invalid regular expression: /(/g: Unterminated group"; the last part is the news.
    const reason = /Invalid regular expression: \/.*\/[a-z]*: (.+)$/s.exec(problem)?.[1];
    return fail(reason ?? problem);
  });
  return rule;
}

/** Validates a `--redact-mode` value. @example parseRedactMode('--redact-mode', 'hash') === 'hash' */
export function parseRedactMode(flag: string, value: string): RedactMode {
  const mode = REDACT_MODES.find((m) => m === value);
  if (mode === undefined) {
    throw new TapedeckError('usage', `${flag} must be one of ${REDACT_MODES.join(', ')}; got '${value}'`);
  }
  return mode;
}

function readConfigText(path: string, required: boolean): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!required && (code === 'ENOENT' || code === 'ENOTDIR')) return undefined;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a folder, expected a JSON file'
          : code === 'EACCES' || code === 'EPERM'
            ? 'permission denied'
            : String((err as Error).message);
    throw new TapedeckError('usage', `redact config ${path}: cannot read: ${why}`, { cause: err });
  }
}

/** Checks one rule's shape and copies only the fields the engine knows. */
function validateRule(raw: unknown): RedactRule {
  if (!isObject(raw)) throw new Error(`expected a rule object like {"type": "regex", …}; got ${kind(raw)}`);
  const type = raw.type;
  if (type === undefined) throw new Error(`missing "type"; expected one of ${typeList()}`);
  if (typeof type !== 'string' || !(type in TYPE_FIELDS)) {
    throw new Error(`unknown type ${JSON.stringify(type)}; expected one of ${typeList()}`);
  }
  const ruleType = type as RedactRule['type'];
  const allowed = [...COMMON_FIELDS, ...TYPE_FIELDS[ruleType]];
  for (const key of Object.keys(raw)) {
    if (!allowed.includes(key) && !key.startsWith('$')) {
      throw new Error(`unknown field "${key}" for a ${ruleType} rule; expected ${allowed.join(', ')}`);
    }
  }
  const id = optional(raw, 'id', 'string') as string | undefined;
  if (id !== undefined && !RULE_ID.test(id)) {
    throw new Error(
      `"id" must be a letter or digit then up to 63 letters, digits, '.', '_' or '-' (it is written inside markers); got ${JSON.stringify(id)}`,
    );
  }
  optional(raw, 'description', 'string');
  const base = id !== undefined ? { id } : {};
  switch (ruleType) {
    case 'key': {
      const exclude = stringList(raw, 'exclude', 'key names');
      const rule = { ...base, type: ruleType, name: required(raw, 'name', ruleType) };
      return exclude !== undefined ? { ...rule, exclude } : rule;
    }
    case 'path':
      return { ...base, type: ruleType, path: required(raw, 'path', ruleType) };
    case 'regex': {
      const flags = optional(raw, 'flags', 'string') as string | undefined;
      const hints = stringList(raw, 'hints', 'literal strings every match contains');
      const minRun = optional(raw, 'minRun', 'number') as number | undefined;
      const rule: RegexRule = { ...base, type: ruleType, pattern: required(raw, 'pattern', ruleType) };
      if (flags !== undefined) rule.flags = flags;
      if (hints !== undefined) rule.hints = hints;
      if (minRun !== undefined) rule.minRun = minRun;
      return rule;
    }
    case 'header': {
      const contains = optional(raw, 'contains', 'boolean') as boolean | undefined;
      const hash = optional(raw, 'hash', 'boolean') as boolean | undefined;
      const exclude = stringList(raw, 'exclude', 'header names');
      const rule: HeaderRule = { ...base, type: ruleType, name: required(raw, 'name', ruleType) };
      if (contains !== undefined) rule.contains = contains;
      if (hash !== undefined) rule.hash = hash;
      if (exclude !== undefined) rule.exclude = exclude;
      return rule;
    }
    case 'pem':
      return { ...base, type: ruleType };
  }
}

/**
 * Lets the engine judge what only it can (regex syntax with its flags, the JSONPath subset), one rule at a time
 * so the failing rule's index is known whatever the engine's own message says.
 */
function checkCompiles(rules: readonly RedactRule[], fail: (index: number, problem: string) => Error): void {
  rules.forEach((rule, index) => {
    try {
      compile({ defaults: false, rules: [rule], mode: 'marker' });
    } catch (err) {
      throw fail(index, engineProblem(err));
    }
  });
}

/** The engine names the rule itself ("redaction rule rules[0] (id): …"); that prefix is ours to say, with the file. */
function engineProblem(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(
    /^(?:redaction\s+)?rule\s+(?:rules|defaults)\[\d+\](?:\s+\([^)]{0,80}\))?\s*:\s*/i,
    '',
  );
}

/** ` (id)` for a rule that has an id, so an error names the rule the way its author does. */
function idOf(rule: unknown): string {
  const id = isObject(rule) ? rule.id : undefined;
  return typeof id === 'string' && RULE_ID.test(id) ? ` (${id})` : '';
}

function required(raw: Record<string, unknown>, field: string, type: string): string {
  const value = raw[field];
  if (value === undefined) throw new Error(`a ${type} rule needs "${field}"`);
  if (typeof value !== 'string' || value === '') {
    throw new Error(`"${field}" must be a non-empty string; got ${kind(value)}`);
  }
  return value;
}

function stringList(raw: Record<string, unknown>, field: string, what: string): string[] | undefined {
  const value = raw[field];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new Error(`"${field}" must be an array of strings (${what}); got ${kind(value)}`);
  }
  return [...value];
}

function optional(
  raw: Record<string, unknown>,
  field: string,
  type: 'string' | 'boolean' | 'number',
): unknown {
  const value = raw[field];
  if (value !== undefined && typeof value !== type) {
    throw new Error(`"${field}" must be a ${type}; got ${kind(value)}`);
  }
  return value;
}

function typeList(): string {
  return Object.keys(TYPE_FIELDS)
    .map((t) => `"${t}"`)
    .join(', ');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

/** "not valid JSON at line 3, column 5: Expected ',' or '}' after property value". */
function describeJsonError(text: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const at = /at position (\d+)/.exec(message);
  const offset = at ? Number(at[1]) : jsonErrorOffset(text);
  const reason = message
    .replace(/\s*in JSON at position \d+.*$/s, '')
    .replace(/, ".*" is not valid JSON$/s, '')
    .replace(/^Unexpected end of JSON input$/, 'the file ends too early');
  const { line, column } = lineColumn(text, offset);
  return `not valid JSON at line ${line}, column ${column}: ${reason}`;
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const lines = before.split('\n');
  return { line: lines.length, column: (lines.at(-1) ?? '').length + 1 };
}

/**
 * Where JSON.parse gave up, for the messages V8 gives without a position ("Unexpected token '}', …"): the longest
 * prefix that could still begin a JSON text ends there. Such prefixes fail only for running out of input, and a
 * prefix of one is one too, so a binary search finds it. Config files are small; this runs only on failure.
 */
function jsonErrorOffset(text: string): number {
  const viable = (length: number): boolean => {
    try {
      JSON.parse(text.slice(0, length));
      return true;
    } catch (err) {
      const message = err instanceof Error ? err.message : '';
      const at = /at position (\d+)/.exec(message);
      return message.startsWith('Unexpected end') || (at !== null && Number(at[1]) >= length);
    }
  };
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (viable(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}
