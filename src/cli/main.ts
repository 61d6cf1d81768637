import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import { registerCommands } from './commands/index.js';
import { describeFailure } from './errors.js';

/**
 * Builds the CLI program for `argv`: the subcommand it names is loaded and registered, the others only listed.
 *
 * @example const program = await buildProgram(['show', 'trace.jsonl']);
 */
export async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = new Command('tapedeck')
    .description('Record, inspect, replay and verify Model Context Protocol traffic.')
    .version(VERSION, '-V, --version')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  tapedeck record --out ./traces -- npx -y @modelcontextprotocol/server-everything\n' +
        '  tapedeck show traces/<file>.jsonl\n' +
        '  tapedeck stats traces/<file>.jsonl --json\n\n' +
        "Exit codes: 0 ok, 1 a finding or bad input, 2 a usage error (record passes on the server's exit code).",
    )
    .exitOverride()
    .configureOutput({
      // Commander's own errors are rethrown through exitOverride and printed once by run(), so print nothing here.
      outputError: () => {},
    });
  await registerCommands(program, argv);
  return program;
}

/**
 * Runs the CLI in-process and resolves to its exit code. Commands report a finding by setting `process.exitCode`;
 * it is read and restored here, so one run never leaks its code into the next (or into a host process).
 *
 * @example process.exitCode = await run(['stats', 'trace.jsonl', '--json']);
 */
export async function run(argv: string[]): Promise<number> {
  const outer = process.exitCode;
  process.exitCode = undefined;
  try {
    const program = await buildProgram(argv);
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError && HELP_CODES.has(err.code)) return 0;
    const { message, exitCode } = describeFailure(err);
    process.stderr.write(`tapedeck: ${message}\n`);
    return exitCode;
  } finally {
    process.exitCode = outer;
  }
}

const HELP_CODES = new Set(['commander.helpDisplayed', 'commander.version', 'commander.help']);
