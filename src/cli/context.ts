import type { Command } from 'commander';
import type { CliIo } from './io.js';

/**
 * What a command module gets besides the program it registers on: the run's CliIo, and `action`, which turns a
 * command's handler — returning its exit code — into what commander calls. The code is the run's answer: a
 * command registered through `action` never touches `process.exitCode`.
 */
export interface Cli {
  io: CliIo;
  /**
   * Wraps a handler that resolves to an exit code (EXIT.ok, EXIT.finding …) as a commander action.
   *
   * @example program.command('scan').action(cli.action(async (trace: string) => ((await scan(trace)) ? EXIT.finding : EXIT.ok)));
   */
  action<A extends unknown[]>(
    handler: (...args: A) => number | Promise<number>,
  ): (...args: A) => Promise<void>;
}

/** A command module's entry: registers its command (or commands) on the program. */
export type Register = (program: Command, cli: Cli) => void;

/**
 * A Cli for one run, and the exit code its command returned (undefined when no action ran: help, the version).
 *
 * @example const { cli, exitCode } = commandContext(io); … await program.parseAsync(argv); return exitCode();
 */
export function commandContext(io: CliIo): { cli: Cli; exitCode: () => number | undefined } {
  let code: number | undefined;
  const cli: Cli = {
    io,
    action:
      (handler) =>
      async (...args) => {
        code = await handler(...args);
      },
  };
  return { cli, exitCode: () => code };
}
