import type { Command } from 'commander';
import { usageError } from '../errors.js';

/**
 * The server command after `--` (`verify`, `run`): commander drops the `--` itself; its raw arguments still show
 * where it was. The arguments a command declares before its `[command...]` are what stands before the `--`.
 */

/**
 * Splits a command's positional words at `--`: those before it and the server command after it. Without `--`
 * there is no server command.
 *
 * @example splitAtDashes(self, ['s.jsonl', 'node', 'server.js']) // → { before: ['s.jsonl'], command: ['node', 'server.js'], dashes: true }
 */
export function splitAtDashes(
  self: Command,
  words: readonly string[],
): { before: string[]; command: string[]; dashes: boolean } {
  const rawArgs = (self.parent as unknown as { rawArgs?: string[] } | null)?.rawArgs ?? [];
  const at = rawArgs.indexOf('--');
  if (at === -1) return { before: [...words], command: [], dashes: false };
  const after = rawArgs.slice(at + 1);
  const cut = Math.max(0, words.length - after.length);
  return { before: words.slice(0, cut), command: after, dashes: true };
}

/**
 * The words after `--`. A word before `--` that commander took for the command is a usage error: the command must
 * not swallow a misplaced argument.
 *
 * @example serverCommand(self, ['node', 'server.js'], 'verify') // → ['node', 'server.js']
 */
export function serverCommand(self: Command, commandArgs: string[], name: string): string[] {
  const { before, command, dashes } = splitAtDashes(self, commandArgs);
  if (dashes && before.length > 0) throw strayArgument(before[0]!, name);
  return command;
}

/** The usage error for a word before `--` where only the server command may stand. */
export function strayArgument(word: string, name: string): Error {
  return usageError(
    `unexpected argument '${word}' before '--': the server command goes after '--' (see tapedeck ${name} --help)`,
  );
}
