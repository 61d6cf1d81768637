import { type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { TapedeckError } from '../base/errors.js';
import { RUN_MODES, type RunMode } from './modes.js';
import type { ProjectConfig } from './project-config.js';

/** The keys a project file may hold (`$schema` for editors). */
const KEYS = ['$schema', 'mode', 'cassetteDir', 'lint'] as const;

/**
 * Reads a project file's text. Fails with one TapedeckError('usage') line naming the file and the key: bad JSON
 * (with line and column), an unknown key, a mode that is none of the modes, a cassetteDir that is not a path.
 *
 * @example parseProjectFile('/repo/tapedeck.config.json', '{"mode":"replay"}').mode // → 'replay'
 */
export function parseProjectFile(
  path: string,
  text: string,
  resolveDir: (dir: string) => string,
): ProjectConfig {
  const fail = (what: string) => new TapedeckError('usage', `${path}: ${what}`);
  const errors: ParseError[] = [];
  const value: unknown = parse(text.replace(/^\uFEFF/, ''), errors, {
    allowTrailingComma: true,
    disallowComments: false,
  });
  const first = errors[0];
  if (first !== undefined) {
    const { line, column } = position(text, first.offset);
    throw fail(`not valid JSON at line ${line}, column ${column}: ${printParseErrorCode(first.error)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw fail(`expected a JSON object such as {"mode": "replay"}; got ${describe(value)}`);
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      throw fail(`unknown key "${key}"; a project file holds ${KEYS.slice(1).join(', ')}`);
    }
  }
  const config: ProjectConfig = { path };
  if (record.mode !== undefined) {
    const mode = typeof record.mode === 'string' ? record.mode.trim().toLowerCase() : undefined;
    if (mode === undefined || !(RUN_MODES as readonly string[]).includes(mode)) {
      throw fail(`"mode" must be one of ${RUN_MODES.join(', ')}; got ${describe(record.mode)}`);
    }
    config.mode = mode as RunMode;
  }
  if (record.cassetteDir !== undefined) {
    if (typeof record.cassetteDir !== 'string' || record.cassetteDir.trim() === '') {
      throw fail(
        `"cassetteDir" must be a folder path, relative to the file's folder; got ${describe(record.cassetteDir)}`,
      );
    }
    config.cassetteDir = resolveDir(record.cassetteDir);
  }
  // `tapedeck lint` checks its own section (src/gates/lint/config.ts): only it knows the rule ids.
  if (record.lint !== undefined) config.lint = record.lint;
  return config;
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset)).split('\n');
  return { line: before.length, column: (before.at(-1) ?? '').length + 1 };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value);
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
