import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import { registerCommands } from './commands/index.js';
import { describeFailure } from './errors.js';

/** Builds the CLI program. Output streams are injectable so commands can be tested in-process. */
export function buildProgram(): Command {
  const program = new Command('tapedeck')
    .description('Record, inspect, replay and verify Model Context Protocol traffic.')
    .version(VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({
      // Commander's own errors are rethrown through exitOverride and printed once by run(), so print nothing here.
      outputError: () => {},
    });
  registerCommands(program);
  return program;
}

export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (
      err instanceof CommanderError &&
      (err.code === 'commander.helpDisplayed' || err.code === 'commander.version')
    ) {
      return 0;
    }
    if (err instanceof CommanderError && err.code === 'commander.help') return 0;
    const { message, exitCode } = describeFailure(err);
    process.stderr.write(`tapedeck: ${message}\n`);
    return exitCode;
  }
}
