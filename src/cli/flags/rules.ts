import type { Command } from 'commander';
import { parseRedactMode, patternRule } from '../../redact/config.js';
import { outputRedaction } from '../../redact/output.js';
import { loadRedaction, type Redaction } from '../../redact/setup.js';
import type { RedactMode } from '../../redact/types.js';
import { type CliIo, homeOf, type RedactedIo, rootIo, say, withRedaction } from '../io.js';

/**
 * The redaction rule flags — `--redact`, `--redact-file`, `--no-redact-defaults`, `--redact-mode` — shared by the
 * commands that record (record, run, mcp), rewrite (redact, report), check (scan, push) or match redacted
 * cassettes (replay), and the redaction they add up to with the config files.
 */

export type { Redaction };

/** The rule flags as commander leaves them. */
export interface RuleFlags {
  redact?: string[];
  redactFile?: string[];
  /** false with --no-redact-defaults (`record` also has --redact-defaults, which prints the built-in rules). */
  redactDefaults?: boolean;
  redactMode?: RedactMode;
}

/**
 * Adds the rule flags. Values are checked as they are parsed: a bad regex or mode is a usage error before
 * anything runs.
 *
 * @example addRuleFlags(program.command('scan'), { mode: false })
 */
export function addRuleFlags(command: Command, which: { mode: boolean } = { mode: true }): Command {
  command
    .option(
      '--redact <regex>',
      'also hide what this regular expression matches (repeatable)',
      (value: string, previous: string[] | undefined) => {
        patternRule('--redact', value);
        return [...(previous ?? []), value];
      },
    )
    .option(
      '--redact-file <path>',
      'also apply the rules in this redact config file (repeatable)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(
      '--no-redact-defaults',
      'do not apply the built-in rules (see tapedeck record --redact-defaults)',
    );
  if (which.mode) {
    command.option(
      '--redact-mode <mode>',
      'how hidden values are written: marker ([REDACTED:rule]) or hash ([REDACTED:rule:<keyed hash>])',
      (value: string) => parseRedactMode('--redact-mode', value),
    );
  }
  return command;
}

/**
 * The redaction setup from every source — user and project config files, `TAPEDECK_REDACT`, then the flags —
 * compiled; in `hash` mode with the per-install key (created on first use). The files and the key are found
 * from `io`'s environment and working folder. Throws a usage error (one line naming the file, the rule and the
 * problem) when any source is bad, so callers run it before they start anything.
 *
 * @example const { redactor } = redactionFrom({ redact: ['ACME-[0-9]{8}'] }, io);
 */
export function redactionFrom(options: RuleFlags, io: CliIo): Redaction {
  let warned = false;
  const root = rootIo(io);
  return loadRedaction({
    patterns: options.redact ?? [],
    files: options.redactFile ?? [],
    defaults: options.redactDefaults !== false,
    mode: options.redactMode ?? 'marker',
    where: redactionWhere(io),
    // Said once per run, however many setups the run loads (run's record and its output, say).
    onNotice: (message) => {
      if (noticed.has(root)) return;
      noticed.add(root);
      say(io, message);
    },
    // Failures inside the engine are reported once, not per line; the engine never stores such a line as it was.
    onError: (err) => {
      if (warned) return;
      warned = true;
      const why = err instanceof Error ? err.message : String(err);
      say(io, `warning: redaction failed on a line (${why}); its payload was not stored`);
    },
  });
}

/** The runs that have said their notice about the built-in rules. */
const noticed = new WeakSet<CliIo>();

/**
 * Where redaction looks for its config files and key: the run's environment, working folder and home.
 *
 * @example cassetteRedaction(meta, { …, where: redactionWhere(io) })
 */
export function redactionWhere(io: CliIo): { env: NodeJS.ProcessEnv; cwd: string; home: string } {
  return { env: io.env, cwd: io.cwd, home: homeOf(io.env) };
}

/**
 * The io for a command that writes from traffic: everything it prints, says and reports goes through the trace's
 * redaction — `redaction`, the setup its rule flags and the config files add up to (redactionFrom).
 *
 * @example const out = redactedIo(io, redactionFrom(flags, io)); await print(out, renderDiff(…));
 */
export function redactedIo(io: CliIo, redaction: Pick<Redaction, 'compiled'>): RedactedIo {
  return withRedaction(io, outputRedaction(redaction.compiled));
}
