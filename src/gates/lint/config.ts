import { TapedeckError } from '../../base/errors.js';
import { LINT_LEVELS, type LintLevel, lintRule } from './rules.js';

/** The `lint` section of tapedeck.config.json, and what `--rule` / `--fail-on` give on the command line. */
export interface LintConfig {
  rules: Record<string, LintLevel>;
  failOn?: 'warn' | 'error' | undefined;
}

const FAIL_ON = ['warn', 'error'] as const;

/**
 * Reads one `ID=LEVEL` of `--rule`, checking the id and the level.
 *
 * @example parseRuleSetting('stdio/non-json=off') // → ['stdio/non-json', 'off']
 */
export function parseRuleSetting(value: string, where = '--rule'): [string, LintLevel] {
  const at = value.lastIndexOf('=');
  const id = at < 0 ? value : value.slice(0, at);
  const level = at < 0 ? '' : value.slice(at + 1);
  if (lintRule(id) === undefined)
    throw new TapedeckError(
      'usage',
      `${where} names no lint rule '${id}'; \`tapedeck lint --list-rules\` lists them`,
    );
  if (!(LINT_LEVELS as readonly string[]).includes(level))
    throw new TapedeckError(
      'usage',
      `${where} ${id} needs a level: ${LINT_LEVELS.join(' | ')}; got '${value}'`,
    );
  return [id, level as LintLevel];
}

/**
 * Checks `--fail-on` (or the config's `failOn`).
 *
 * @example parseFailOn('warn') // → 'warn'
 */
export function parseFailOn(value: unknown, where = '--fail-on'): 'warn' | 'error' {
  const found = FAIL_ON.find((level) => level === value);
  if (found === undefined)
    throw new TapedeckError('usage', `${where} must be warn or error; got ${JSON.stringify(value)}`);
  return found;
}

/**
 * Checks the `lint` section of a project file: `{ "rules": { "ID": "LEVEL" }, "failOn": "warn" | "error" }`.
 *
 * @example parseLintSection({ rules: { 'stdio/non-json': 'off' } }, 'tapedeck.config.json')
 */
export function parseLintSection(value: unknown, file: string): LintConfig {
  const where = `${file}: "lint"`;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TapedeckError(
      'usage',
      `${where} must be an object such as {"rules": {"stdio/non-json": "off"}}`,
    );
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record))
    if (key !== 'rules' && key !== 'failOn')
      throw new TapedeckError('usage', `${where} has an unknown key "${key}"; it holds rules and failOn`);
  const config: LintConfig = { rules: {} };
  if (record.rules !== undefined) {
    if (typeof record.rules !== 'object' || record.rules === null || Array.isArray(record.rules))
      throw new TapedeckError('usage', `${where}.rules must be an object of rule id to level`);
    for (const [id, level] of Object.entries(record.rules)) {
      const [rule, parsed] = parseRuleSetting(`${id}=${String(level)}`, `${where}.rules`);
      config.rules[rule] = parsed;
    }
  }
  if (record.failOn !== undefined) config.failOn = parseFailOn(record.failOn, `${where}.failOn`);
  return config;
}
