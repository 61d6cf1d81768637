import type { Command } from 'commander';
import { TapedeckError } from '../../base/errors.js';
import { defaultTraceDir } from '../../base/paths.js';
import { listTraces, newestTrace } from '../../sink/trace-list.js';
import { usageError } from '../errors.js';
import { type CliIo, userPath } from '../io.js';
import { pathKind } from '../paths.js';

/**
 * `--last`: "the trace I just recorded" without typing its name. The newest trace (by its start time) of the
 * recording folder, or of the folder given in place of a trace. Every command that takes one trace has it.
 */

export interface LastFlag {
  last?: boolean;
}

/**
 * Adds `--last` to a command whose trace argument is optional (`[trace]` or `[trace...]`).
 *
 * @example addLastFlag(program.command('show').argument('[trace]'));
 */
export function addLastFlag(command: Command): Command {
  return command.option(
    '--last',
    'the newest trace of the recording folder ($TAPEDECK_DIR or ~/.tapedeck/traces), or of the folder given',
  );
}

/**
 * The one trace a command works on: the argument as given, or with `--last` the newest trace of the folder it
 * names (the recording folder when there is none), said on stderr. A missing argument without `--last` is a usage
 * error.
 *
 * @example traceArgument(undefined, { last: true }, 'show', io) // → '/home/me/.tapedeck/traces/2026…-everything.jsonl'
 */
export function traceArgument(
  arg: string | undefined,
  flags: LastFlag,
  command: string,
  io: CliIo,
  what = 'a trace file',
): string {
  if (flags.last !== true) {
    if (arg === undefined) {
      throw usageError(`${command} needs ${what}, or --last for the newest trace of the recording folder`);
    }
    return arg;
  }
  const recordings = defaultTraceDir(io.env);
  const dir = arg ?? recordings;
  if (arg !== undefined && pathKind(userPath(io, arg)) !== 'directory') {
    throw usageError(
      `--last picks the newest trace of a folder; '${arg}' is not a folder (give a folder, or nothing for ${recordings})`,
    );
  }
  const path = newest(userPath(io, dir));
  io.stderr.write(`tapedeck: the newest trace: ${path}\n`);
  return path;
}

/**
 * The traces a multi-trace command (`view`, `report`) works on: with `--last` the newest trace of each folder
 * given (or of the recording folder); without it, files as given and — where `perFolder` is set — the `perFolder`
 * newest traces of each folder given.
 *
 * @example traceArguments(['./traces'], {}, 'view', io, 5) // → the 5 newest traces of ./traces
 */
export function traceArguments(
  args: readonly string[],
  flags: LastFlag,
  command: string,
  io: CliIo,
  perFolder?: number,
): string[] {
  if (flags.last === true) {
    return (args.length === 0 ? [undefined] : args).map((arg) => traceArgument(arg, flags, command, io));
  }
  if (args.length === 0) {
    throw usageError(`${command} needs trace files, or --last for the newest trace of the recording folder`);
  }
  if (perFolder === undefined) return [...args];
  return args.flatMap((arg) => {
    if (pathKind(userPath(io, arg)) !== 'directory') return [arg];
    const traces = listTraces(userPath(io, arg));
    if (traces.length === 0) throw new TapedeckError('not_found', `no traces in ${arg}`);
    const picked = traces.slice(0, perFolder);
    io.stderr.write(
      `tapedeck: the ${picked.length === 1 ? 'newest trace' : `${picked.length} newest traces`} of ${arg}` +
        (traces.length > picked.length ? ` (of ${traces.length})` : '') +
        '\n',
    );
    return picked.map((trace) => trace.path);
  });
}

function newest(dir: string): string {
  try {
    return newestTrace(dir).path;
  } catch (err) {
    if (err instanceof TapedeckError) throw new TapedeckError(err.code, `--last: ${err.message}`);
    throw err;
  }
}
