import { type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { TapedeckError } from '../errors.js';
import { RUN_MODES, type RunMode } from './run.js';

/**
 * The project file, `tapedeck.config.json`: settings that belong to a project, not to a command line, and so reach
 * tapedeck whatever an MCP client passes on to the process it starts. The official SDK's stdio transport gives a
 * server only a short default environment (HOME, PATH …), so `TAPEDECK_MODE=replay` set in CI never reaches a
 * `tapedeck run` that a test's client spawns; a file in the project does. It is found by walking up from the
 * working folder, then from the cassette's folder, and checked before anything runs:
 *
 * ```json
 * { "mode": "replay", "cassetteDir": "test/__cassettes__" }
 * ```
 *
 * `mode`: what `tapedeck run` and `useCassette` do (auto | record | replay | update | passthrough). `cassetteDir`:
 * where a relative cassette path given to `run`, `replay` or `verify` is looked up, relative to the file's folder.
 * Precedence, strongest first: `$TAPEDECK_MODE`, the project file, `--mode` (or useCassette's `mode`), `auto` —
 * settings that describe where a run happens (CI) win over what is baked into a command or a client config.
 * node: modules are loaded on first use, so importing tapedeck/replay loads none.
 */

export const PROJECT_FILE_NAME = 'tapedeck.config.json';

/** The keys a project file may hold (`$schema` for editors). */
const KEYS = ['$schema', 'mode', 'cassetteDir'] as const;

export interface ProjectConfig {
  /** The file's absolute path. */
  path: string;
  mode?: RunMode | undefined;
  /** Absolute: the folder relative cassette paths are taken from. */
  cassetteDir?: string | undefined;
}

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
      throw fail(`unknown key "${key}"; a project file holds ${KEYS.slice(1).join(' and ')}`);
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
  return config;
}

/**
 * The nearest project file above each of `starts` in turn (the working folder first, then the cassette's folder),
 * read and checked; undefined when there is none.
 *
 * @example await findProjectFile([process.cwd()]) // → { path: '/repo/tapedeck.config.json', mode: 'replay' }
 */
export async function findProjectFile(starts: readonly string[]): Promise<ProjectConfig | undefined> {
  const [{ readFile, stat }, { dirname, join, resolve }] = await Promise.all([
    import('node:fs/promises'),
    import('node:path'),
  ]);
  const seen = new Set<string>();
  for (const start of starts) {
    for (let dir = resolve(start); !seen.has(dir); dir = dirname(dir)) {
      seen.add(dir);
      const path = join(dir, PROJECT_FILE_NAME);
      const found = await stat(path).then(
        (s) => s.isFile(),
        () => false,
      );
      if (found) {
        let text: string;
        try {
          text = await readFile(path, 'utf8');
        } catch (err) {
          throw new TapedeckError('io', `cannot read ${path}: ${(err as Error).message}`, { cause: err });
        }
        return parseProjectFile(path, text, (sub) => resolve(dir, sub));
      }
    }
  }
  return undefined;
}

/**
 * Where a cassette path points: absolute as it is; relative, inside the project's `cassetteDir` when it has one,
 * else from the working folder.
 *
 * @example await resolveCassettePath('s.jsonl', { path: '/r/tapedeck.config.json', cassetteDir: '/r/fixtures' }) // → '/r/fixtures/s.jsonl'
 */
export async function resolveCassettePath(
  cassette: string,
  project: ProjectConfig | undefined,
  cwd?: string,
): Promise<string> {
  const { isAbsolute, resolve } = await import('node:path');
  if (isAbsolute(cassette)) return cassette;
  if (project?.cassetteDir !== undefined) return resolve(project.cassetteDir, cassette);
  return resolve(cwd ?? process.cwd(), cassette);
}

/**
 * The project file for a command that names a cassette: searched from the working folder, then from the folder
 * the cassette would be in without one.
 *
 * @example const { project, cassette } = await projectFor('fixtures/s.jsonl');
 */
export async function projectFor(
  cassette: string | undefined,
  cwd: string = process.cwd(),
): Promise<{ project: ProjectConfig | undefined; cassette: string | undefined }> {
  const { dirname, resolve } = await import('node:path');
  const starts = cassette === undefined ? [cwd] : [cwd, dirname(resolve(cwd, cassette))];
  const project = await findProjectFile(starts);
  return {
    project,
    cassette: cassette === undefined ? undefined : await resolveCassettePath(cassette, project, cwd),
  };
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
