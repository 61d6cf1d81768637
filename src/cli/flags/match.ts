import type { Command } from 'commander';
import { compileIgnorePath, type IgnorePath } from '../../replay/cassette/paths.js';
import type { MatchMode, RepeatMode, SettingNames } from '../../replay/options.js';
import { usageError } from '../errors.js';

/**
 * How live requests are lined up with recorded ones: `--match` and `--repeat` (replay, run) and `--ignore`
 * (replay, run, diff, verify — JSONPaths left out of matching or comparing), checked before anything is read.
 */

/**
 * How replay's messages name its settings on the command line (a miss under `--match ordered`, a request asked
 * more often than recorded), in place of the option names code passes.
 */
export const MATCH_FLAG_NAMES: SettingNames = {
  repeatLast: '--repeat last',
  matchOrdered: '--match ordered',
  matchKeyed: '--match keyed',
};

/**
 * Adds `--match`, `--ignore` and `--repeat`: how live requests are matched to a cassette, shared by `replay` and
 * `run`.
 *
 * @example addMatchFlags(program.command('replay')).option('--timing <timing>', '…')
 */
export function addMatchFlags(command: Command): Command {
  return command
    .option(
      '--match <mode>',
      'keyed: any order between different requests | ordered: the recorded order',
      'keyed',
    )
    .option(
      '--ignore <path>',
      'leave this JSONPath of the request out of matching, e.g. $.params.arguments.timestamp (repeatable)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--repeat <mode>',
      'none: a request is served once per recording | last: the last recording again',
      'none',
    );
}

/**
 * A `--repeat` value checked: none or last.
 *
 * @example repeatMode('last') // → 'last'
 */
export function repeatMode(value: string): RepeatMode {
  if (value !== 'none' && value !== 'last') throw usageError(`--repeat must be none or last; got '${value}'`);
  return value;
}

/**
 * A `--match` value checked: keyed or ordered.
 *
 * @example matchMode('ordered') // → 'ordered'
 */
export function matchMode(value: string): MatchMode {
  if (value !== 'keyed' && value !== 'ordered')
    throw usageError(`--match must be keyed or ordered; got '${value}'`);
  return value;
}

/**
 * `--ignore` values compiled; the first that is not a JSONPath tapedeck reads is a usage error naming it.
 *
 * @example ignorePaths(['$.result.content[0].text'])
 */
export function ignorePaths(paths: readonly string[]): IgnorePath[] {
  return paths.map((path) => {
    try {
      return compileIgnorePath(path);
    } catch (err) {
      throw usageError(`--ignore '${path}': ${(err as Error).message.replace(/^bad ignore path: /, '')}`);
    }
  });
}
