import type { Command, Option } from 'commander';
import { type OptionArity, type OptionLookup, withDashes } from './server-words.js';

/**
 * The server command of `record`, `run` and `verify`: after `--`, or — for callers that cannot pass `--` on — from
 * the first word that is not an option (server-words.ts). Before commander parses a command line,
 * `withServerDashes` puts the `--` in where it was left out, so commander reads one form: every word after `--` is
 * a positional word, and the command's `[command...]` argument is exactly the server command.
 */

/** The help line of every command that takes a server command. */
export const SERVER_COMMAND_HELP =
  "The '--' may be left out (PowerShell and the MCP Inspector CLI drop it): the first word that is not an option\n" +
  "starts the server command, and every word from there on is the server's, even one that looks like a flag.";

/** Commands that take a server command, and how many positional words of their own come before it. */
const TAKES_SERVER = new WeakMap<Command, number>();

/**
 * Declares the server command as a command's last argument, after the positional arguments it has declared so
 * far (`verify <cassette>`: the cassette comes first, the next word starts the server command).
 *
 * @example addServerCommandArgument(program.command('record'))
 */
export function addServerCommandArgument(command: Command): Command {
  TAKES_SERVER.set(command, command.registeredArguments.length);
  return command.argument(
    '[command...]',
    'the server command and its arguments: every word from its first one on (or after --) is its own',
  );
}

/**
 * The command line `argv` (subcommand first) with `--` before the server command when it was left out, for the
 * subcommand registered on `program` that takes one; any other command line unchanged.
 *
 * @example withServerDashes(program, ['record', '--out', 'd', 'node', 's.js']) // → ['record', '--out', 'd', '--', 'node', 's.js']
 */
export function withServerDashes(program: Command, argv: readonly string[]): string[] {
  const [name, ...words] = argv;
  const command = program.commands.find((candidate) => candidate.name() === name);
  const leading = command === undefined ? undefined : TAKES_SERVER.get(command);
  if (command === undefined || leading === undefined) return [...argv];
  return [name!, ...withDashes(words, optionLookup(command), leading)];
}

/** The arity of each of a commander command's options, read from their declarations. */
export function optionLookup(command: Command): OptionLookup {
  return (flag) => {
    const option = command.options.find((candidate) => candidate.short === flag || candidate.long === flag);
    return option === undefined ? undefined : arityOf(option);
  };
}

function arityOf(option: Option): OptionArity {
  if (option.required) return 'value';
  if (!option.optional) return 'none';
  // `--live [url]`: the next word is its value only when the option would take it; else it starts the command.
  const parse = option.parseArg;
  return {
    optional: (word) => {
      if (parse === undefined) return true;
      try {
        parse(word, undefined);
        return true;
      } catch {
        return false;
      }
    },
  };
}
