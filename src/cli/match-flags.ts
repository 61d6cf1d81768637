import type { Command } from 'commander';

/** `--match` and `--ignore`: how live requests are matched to a cassette, shared by `replay` and `run`. */
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
    );
}
