/**
 * The command-line reference, docs/reference/cli.md, is generated from the commander program `tapedeck` runs
 * (scripts/cli-reference.mjs, `npm run docs`), so it cannot drift from the commands: this test builds it again from
 * the sources, in process, and fails when the committed file says anything else.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BuildProgram, CLI_REFERENCE_PATH, renderCliReference } from '../../scripts/cli-reference.mjs';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { buildProgram } from '../../src/cli/main.js';

const root = join(import.meta.dirname, '..', '..');
const build = buildProgram as unknown as BuildProgram;

describe('the command-line reference', () => {
  it('is the one the committed file holds', async () => {
    // A checkout that turned line ends into CRLF (Windows) holds the same reference.
    const committed = readFileSync(join(root, CLI_REFERENCE_PATH), 'utf8').replace(/\r\n/g, '\n');
    expect(
      await renderCliReference(build),
      `the commands changed: run npm run docs and review the diff of ${CLI_REFERENCE_PATH}`,
    ).toBe(committed);
  }, 60_000);

  it('has a section for every command, with its options, defaults and help examples', async () => {
    const reference = await renderCliReference(build);
    for (const { name } of COMMANDS) expect(reference, name).toContain(`\n## ${name}\n`);
    const replay = reference.slice(reference.indexOf('\n## replay\n'), reference.indexOf('\n## verify\n'));
    expect(replay).toContain('`tapedeck replay [options] [cassette]`');
    expect(replay).toMatch(/\| `--match <mode>` \| .* \| `"keyed"` \|/);
    expect(replay).toContain('Examples:');
    expect(reference).toContain('### share list');
    expect(reference).toContain('### share revoke');
  }, 60_000);

  it('takes in a command added to the program, with no change to the generator', async () => {
    const withAudit: BuildProgram = async (argv, io) => {
      const built = await build(argv, io);
      if (argv.length === 0 || argv[0] === 'audit')
        built.program
          .command('audit')
          .description('Check a trace against the protocol.')
          .argument('<trace>', 'the trace to check')
          .option('--level <level>', 'the least severity reported', 'warning')
          .addHelpText('after', '\nExamples:\n  tapedeck audit traces/run.jsonl');
      return built;
    };
    const reference = await renderCliReference(withAudit);
    expect(reference).toContain('| [`audit`](#audit) | Check a trace against the protocol. |');
    const audit = reference.slice(reference.indexOf('\n## audit\n'));
    expect(audit).toContain('`tapedeck audit [options] <trace>`');
    expect(audit).toContain('| `<trace>` | the trace to check |');
    expect(audit).toContain('| `--level <level>` | the least severity reported | `"warning"` |');
    expect(audit).toContain('  tapedeck audit traces/run.jsonl');
  }, 60_000);

  it('says nothing of the machine it was written on: no home folder, no checkout, no TAPEDECK_ variables', async () => {
    const before = process.env.TAPEDECK_HOME;
    process.env.TAPEDECK_HOME = join(root, 'a-home-of-its-own');
    try {
      const reference = await renderCliReference(build);
      expect(reference).toContain('where trajectories are kept (default: ~/.tapedeck/trajectories)');
      expect(reference).not.toContain(`${homedir()}/`);
      expect(reference).not.toContain(root);
    } finally {
      if (before === undefined) delete process.env.TAPEDECK_HOME;
      else process.env.TAPEDECK_HOME = before;
    }
    expect(process.env.TAPEDECK_HOME).toBe(before);
  }, 60_000);
});
