import { Command, CommanderError } from 'commander';
import { VERSION } from '../base/version.js';
import { registerCommands } from './commands/index.js';
import { commandContext } from './context.js';
import { describeFailure, EXIT } from './errors.js';
import { withServerDashes } from './flags/server-command.js';
import { type CliIo, type CliStream, processIo } from './io.js';

/**
 * Builds the CLI program for `argv`: the subcommand it names is loaded and registered, the others only listed.
 * Its commands write to `io`; the exit code of the one that runs is read with `exitCode()`.
 *
 * @example const { program, exitCode } = await buildProgram(['show', 'trace.jsonl'], processIo());
 */
export async function buildProgram(
  argv: readonly string[],
  io: CliIo = processIo(),
): Promise<{ program: Command; exitCode: () => number | undefined }> {
  const { cli, exitCode } = commandContext(io);
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
      // Help and version go to the run's stdout; commander's own errors are rethrown through exitOverride and
      // printed once by run(), so they are written nowhere here.
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      getOutHelpWidth: () => helpWidth(io.stdout),
      getErrHelpWidth: () => helpWidth(io.stderr),
      outputError: () => {},
    });
  await registerCommands(program, argv, cli);
  return { program, exitCode };
}

/**
 * Runs the CLI in-process and resolves to its exit code: the code the command returned, 2 for a usage error, 1 for
 * bad input, never a thrown error. Everything is written to `io` (the process's streams by default); this is the
 * one place that decides how a failure is shown: one line, `tapedeck: <what happened>`.
 *
 * @example const code = await run(['stats', 'trace.jsonl', '--json'], processIo());
 */
export async function run(argv: string[], io: CliIo = processIo()): Promise<number> {
  try {
    const { program, exitCode } = await buildProgram(argv, io);
    // `record node server.js` is read as `record -- node server.js`: some callers cannot pass `--` on.
    await program.parseAsync(withServerDashes(program, argv), { from: 'user' });
    // No code: help or the version was printed (or no command was named, which commander answers with help).
    return exitCode() ?? EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError && HELP_CODES.has(err.code)) return EXIT.ok;
    const { message, exitCode } = describeFailure(err);
    // A failure may quote what it failed on (a server's error, a line it could not read): the built-in rules hide
    // what a trace would, whatever the command loaded or did not get to load.
    // Loaded here, not at start-up: most runs end without a failure.
    const { builtInOutputRedaction } = await import('../redact/output.js');
    io.stderr.write(`tapedeck: ${builtInOutputRedaction().text(message)}\n`);
    return exitCode;
  }
}

const HELP_CODES = new Set(['commander.helpDisplayed', 'commander.version', 'commander.help']);

/** The width help is fitted to: a terminal's own, else commander's default of 80 columns. */
function helpWidth(stream: CliStream): number {
  return stream.isTTY === true && stream.columns !== undefined ? stream.columns : 80;
}
