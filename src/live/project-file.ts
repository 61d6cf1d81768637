import { TapedeckError } from '../base/errors.js';
import type { ProjectConfig } from './project-config.js';

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
 * node: modules are loaded on first use, so importing mcp-tapedeck/replay loads none.
 */

export const PROJECT_FILE_NAME = 'tapedeck.config.json';

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
        // The JSONC parser is loaded only when there is a file to read: most runs have none.
        const { parseProjectFile } = await import('./project-file-parse.js');
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
