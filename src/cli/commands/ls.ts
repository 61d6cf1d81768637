import type { Command } from 'commander';
import { TapedeckError } from '../../base/errors.js';
import { defaultTraceDir } from '../../base/paths.js';
import { renderTraceLines, renderTraceList, renderTraceListJson } from '../../report/text/trace-list.js';
import { listTraces } from '../../sink/trace-list.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { redactedIo, redactionFrom } from '../flags/rules.js';
import { print, say, userPath } from '../io.js';
import { parsePositiveInt } from '../parse.js';
import { terminalWidth, useColor } from '../terminal.js';

interface LsFlags {
  json?: boolean;
  limit: number;
  all?: boolean;
}

const DEFAULT_LIMIT = 20;

/**
 * `tapedeck ls [DIR] [--json] [--limit N | --all]`: the traces of a folder, newest first, from each file's first
 * and last line only.
 *
 * @example registerLs(program, cli); // tapedeck ls ./traces --json
 */
export function registerLs(program: Command, { io, action }: Cli): void {
  program
    .command('ls')
    .description(
      'List recent traces in a folder (default: the recording folder), newest first: time, label, transport, duration, messages, errors, size.',
    )
    .argument('[dir]', 'a folder of traces (default: $TAPEDECK_DIR or ~/.tapedeck/traces)')
    .option('--json', 'print the list as JSON (paths absolute)')
    .option(
      '-n, --limit <n>',
      'show at most this many',
      (value) => parsePositiveInt('--limit', value),
      DEFAULT_LIMIT,
    )
    .option('--all', 'show every trace of the folder')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  tapedeck ls',
        '  tapedeck ls ./traces --json | jq -r ".[0].path"',
        '  tapedeck ls | head -1 | cut -f9     # in a pipe: one tab-separated line per trace, path last',
        '  tapedeck show --last            # the newest trace of the recording folder',
        '',
        'Rotated segments are listed once, under the active file. Only the first and the last line of each file',
        'are read (the meta and the end line), so a folder of big traces lists as fast as one of small ones.',
        'On a terminal the list is a table; in a pipe each trace is one line, tab-separated, no header:',
        'startedAt, label, transport, durationMs, ended, messages, errors, size (bytes), path — `-` when unknown.',
      ].join('\n'),
    )
    .action(
      action(async (dir: string | undefined, flags: LsFlags) => {
        const folder = dir ?? defaultTraceDir(io.env);
        const where = userPath(io, folder);
        let traces: ReturnType<typeof listTraces>;
        try {
          traces = listTraces(where);
        } catch (err) {
          // The default folder not existing yet just means nothing was recorded.
          if (dir === undefined && err instanceof TapedeckError && err.code === 'not_found') traces = [];
          else if (err instanceof TapedeckError && err.code === 'usage') throw usageError(err.message);
          else throw err;
        }
        const shown = flags.all === true ? traces : traces.slice(0, flags.limit);
        // Labels and servers come from the traces' meta lines: printed through the trace's redaction.
        const out = redactedIo(io, redactionFrom({}, io));
        if (flags.json === true) {
          await print(out, renderTraceListJson(shown));
          return EXIT.ok;
        }
        // In a pipe, one line per trace (`tapedeck ls | head -1 | cut -f9`); the notes go to stderr there.
        const piped = io.stdout.isTTY !== true;
        if (piped && traces.length > 0) {
          await print(io, renderTraceLines(shown));
          const more = traces.length - shown.length;
          if (more > 0) say(io, `${more} older trace${more === 1 ? '' : 's'} not shown (--all)`);
          return EXIT.ok;
        }
        if (traces.length === 0) {
          say(
            io,
            `no traces in ${folder} (record one: tapedeck record${dir === undefined ? '' : ` --out ${dir}`} -- <server command>)`,
          );
          return EXIT.ok;
        }
        await print(
          out,
          renderTraceList(shown, {
            dir: where,
            color: useColor(io.stdout, io.env),
            more: traces.length - shown.length,
            width: terminalWidth(io.stdout, io.env),
          }),
        );
        return EXIT.ok;
      }),
    );
}
