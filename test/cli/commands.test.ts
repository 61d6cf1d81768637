/**
 * Each command loads its own code only: the top-level help lists every command from a table, without loading
 * any of them, and `tapedeck <command>` loads that command alone. The table must say what the modules register.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, Help } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { commandContext } from '../../src/cli/context.js';
import { processIo } from '../../src/cli/io.js';

const root = join(import.meta.dirname, '..', '..');
const trace = join(root, 'test', 'fixtures', 'interop', 'mcp-tape', 'everything-stdio.jsonl');
const hook = join(root, 'test', 'fixtures', 'scripts', 'log-requires.cjs');
/** The executable npm installs as `tapedeck`. */
const launcher = join(root, 'dist', 'cli', 'tapedeck.cjs');
const tmp = mkdtempSync(join(tmpdir(), 'tapedeck-commands-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the command table', () => {
  it.each(COMMANDS.map((entry) => [entry.name, entry] as const))(
    '%s: its module registers it with the listed term and description',
    async (name, entry) => {
      const program = new Command('tapedeck');
      (await entry.load())(program, commandContext(processIo()).cli);
      const command = program.commands.find((candidate) => candidate.name() === name);
      expect(command).toBeDefined();
      expect(new Help().subcommandTerm(command!)).toBe(entry.term);
      expect(command!.description()).toBe(entry.description);
    },
  );

  it('lists every command the modules define', async () => {
    const registered = new Set<string>();
    for (const entry of COMMANDS) {
      const program = new Command('tapedeck');
      (await entry.load())(program, commandContext(processIo()).cli);
      for (const command of program.commands) registered.add(command.name());
    }
    expect([...registered].sort()).toEqual(COMMANDS.map((entry) => entry.name).sort());
  });
});

/** The files of the built CLI and the packages a command line loads. */
function loads(args: string[]): { chunks: string[]; packages: string[] } {
  const log = join(tmp, `${args.join('_').replace(/\W/g, '')}.log`);
  const ran = spawnSync(process.execPath, ['--require', hook, launcher, ...args], {
    env: { ...process.env, TAPEDECK_IMPORT_LOG: log, TAPEDECK_DIR: tmp },
    input: '',
    encoding: 'utf8',
  });
  expect(ran.status).toBe(0);
  const paths = readFileSync(log, 'utf8').trim().split('\n');
  const chunks = paths.filter((path) => path.includes('/dist/cli/'));
  const packages = paths
    .map((path) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1])
    .filter((name): name is string => name !== undefined);
  return { chunks, packages: [...new Set(packages)].sort() };
}

/**
 * The commands whose modules were loaded. A chunk's name is the bundler's choice (a chunk of shared modules may be
 * named after any of them), so the chunks are read: each marks the source modules it holds
 * (`// src/cli/commands/show.ts`).
 */
const commandChunks = (chunks: string[]) => [
  ...new Set(
    chunks
      .filter((chunk) => chunk.endsWith('.cjs'))
      .flatMap((chunk) =>
        [...readFileSync(chunk, 'utf8').matchAll(/^\/\/ src\/cli\/commands\/([\w-]+)\.ts$/gm)].map(
          (m) => m[1]!,
        ),
      )
      .filter((name) => COMMANDS.some((entry) => entry.name === name)),
  ),
];

describe('the built CLI loads what the command needs', () => {
  it('tapedeck --help loads no command at all', () => {
    const { chunks, packages } = loads(['--help']);
    expect(commandChunks(chunks)).toEqual([]);
    expect(packages).toEqual(['commander']);
  });

  it.each([
    [['show', trace], ['show']],
    [['stats', trace], ['stats']],
    [['ls', tmp], ['ls']],
    [['replay', trace, '--allow-unused'], ['replay']],
  ])('tapedeck %j loads that command alone, and no HTTP, SDK or SQLite package', (args, own) => {
    const { chunks, packages } = loads(args);
    expect(commandChunks(chunks)).toEqual(own);
    expect(packages).toEqual(['commander']);
  });
});
