import type { Command } from 'commander';
import { TapedeckError } from '../../errors.js';
import { parseRedactMode, patternRule } from '../../redact/config.js';
import { summarize } from '../../redact/index.js';
import { loadRedaction, type Redaction } from '../../redact/setup.js';
import type { RedactMode } from '../../redact/types.js';
import { deriveLabel } from '../../sink/naming.js';
import { encodeLine } from '../../trace/encode.js';
import type { OpenedTrace } from '../../trace/import/opened.js';
import {
  batch,
  nodeTraceFiles,
  noFollowTraceFiles,
  openTrace,
  readFromPipe,
  writePrivateFile,
} from '../../trace/io.js';
import type { TraceDiagnostic } from '../../trace/reader.js';
import type { MetaLine } from '../../trace/types.js';
import { PRODUCER } from '../../version.js';
import { EXIT, usageError } from '../errors.js';
import { createOutput } from '../format/output.js';
import { type KeptFormat, redactedInFormat } from './redact-formats.js';

export type { Redaction };

/** The rule flags `record`, `redact` and `scan` share. */
export interface RuleFlags {
  redact?: string[];
  redactFile?: string[];
  /** false with --no-redact-defaults (`record` also has --redact-defaults, which prints the built-in rules). */
  redactDefaults?: boolean;
  redactMode?: RedactMode;
}

interface RedactOptions extends RuleFlags {
  out?: string;
  inPlace?: boolean;
  strict?: boolean;
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
 * compiled; in `hash` mode with the per-install key (created on first use). Throws a usage error (one line naming
 * the file, the rule and the problem) when any source is bad, so callers run it before they start anything.
 *
 * @example const { redactor } = redactionFrom({ redact: ['ACME-[0-9]{8}'] });
 */
export function redactionFrom(options: RuleFlags): Redaction {
  let warned = false;
  return loadRedaction({
    patterns: options.redact ?? [],
    files: options.redactFile ?? [],
    defaults: options.redactDefaults !== false,
    mode: options.redactMode ?? 'marker',
    // Failures inside the engine are reported once, not per line; the engine never stores such a line as it was.
    onError: (err) => {
      if (warned) return;
      warned = true;
      const why = err instanceof Error ? err.message : String(err);
      process.stderr.write(
        `tapedeck: warning: redaction failed on a line (${why}); its payload was not stored\n`,
      );
    },
  });
}

/**
 * The meta line of a redacted trace: the redactor's copy (command, label, url) with the redaction summary. A label
 * that was derived from the command is derived again from the redacted command, as `record` derives it.
 *
 * @example redactedMeta(trace.meta, redactionFrom(options))
 */
export function redactedMeta(meta: MetaLine, { config, redactor }: Redaction): MetaLine {
  const out: MetaLine = { ...redactor({ ...meta, redaction: summarize(config) }) };
  const derived = Array.isArray(meta.command) && meta.label === deriveLabel(meta.command);
  if (derived && Array.isArray(out.command)) out.label = deriveLabel(out.command);
  return out;
}

/**
 * `tapedeck redact <trace> [-o OUT | --in-place]`: applies the redaction rules to an existing trace of any
 * importable format and writes it in the same format, to stdout, to a private file, or over the original.
 *
 * @example await run(['redact', 'old.jsonl', '--in-place', '--redact', '\\bACME-[0-9]{8}\\b']);
 */
export function registerRedact(program: Command): void {
  const command = program
    .command('redact')
    .description(
      'Apply redaction rules to an existing trace (any format tapedeck reads), keeping its format.',
    )
    .argument(
      '<trace>',
      'trace file: tapedeck/mcp-tape JSONL, mcporter NDJSON, shack JSON, HTTP exchanges JSON, HAR',
    )
    .option('-o, --out <file>', 'write to this file (mode 0600, new folders 0700) instead of stdout')
    .option(
      '--in-place',
      'replace the trace itself, atomically (every segment of a rotated trace), mode 0600',
    )
    .option('--strict', 'stop at the first corrupt line instead of leaving it out with a warning');
  addRuleFlags(command)
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  tapedeck redact traces/run.jsonl -o shareable.jsonl\n' +
        "  tapedeck redact traces/run.jsonl --in-place --redact 'ACME-[0-9]{8}'\n" +
        '  tapedeck redact ~/.mcporter/recordings/s.ndjson --redact-mode hash > s.ndjson\n\n' +
        "The output keeps the input's format: tapedeck or mcp-tape JSONL, mcporter NDJSON (still replayable by\n" +
        'mcporter), HAR, a shack trajectory, an HTTP exchanges capture.\n' +
        'Rules come from ~/.config/tapedeck/redact.json, ./.tapedeck/redact.json, $TAPEDECK_REDACT and the flags.\n' +
        'Corrupt input lines are left out (they cannot be redacted) and reported on stderr.\n' +
        'Check the result with tapedeck scan before sharing it.',
    )
    .action(async (input: string, options: RedactOptions) => {
      if ((await redact(input, options)) > 0) process.exitCode = EXIT.input;
    });
}

/** Redacts; resolves to the number of corrupt input lines left out. */
async function redact(input: string, options: RedactOptions): Promise<number> {
  if (options.out !== undefined && options.inPlace) {
    throw usageError(
      '-o and --in-place cannot be used together; write a redacted copy with -o, or replace the trace with --in-place',
    );
  }
  const redaction = redactionFrom(options);
  let errors = 0;
  const openOptions = {
    mode: options.strict ? ('strict' as const) : ('lenient' as const),
    onDiagnostic: (d: TraceDiagnostic) => {
      if (d.severity === 'error') errors += 1;
      process.stderr.write(`tapedeck: ${d.severity}: ${d.message}\n`);
    },
  };
  // A trace rewritten in place is read without following links: a link's target would be copied into its folder.
  const files = options.inPlace && input !== '-' ? noFollowTraceFiles : nodeTraceFiles;
  const trace = await openTrace(input, openOptions, files);
  if (options.inPlace) refuseInPlace(input);
  if (trace.format !== 'tapedeck' && trace.segments.length <= 1) {
    // Another tool's file stays a file of that tool: mcporter can still replay it, a HAR viewer still open it.
    const onCorrupt = (lineNo: number, why: string) => {
      errors += 1;
      process.stderr.write(`tapedeck: error: ${input} line ${lineNo}: ${why}\n`);
    };
    const kept = () => redactedInFormat(input, trace.format as KeptFormat, redaction, onCorrupt);
    if (options.inPlace) await replaceUnlessLost(input, kept(), () => errors);
    else if (options.out !== undefined) await writePrivateFile(options.out, kept());
    else await writeStdout(kept());
    return errors;
  }
  if (options.inPlace && trace.segments.length > 1) {
    // Each segment stays its own file with its own meta, so the trace still stitches as before.
    for (const [i, segment] of trace.segments.entries()) {
      const last = i === trace.segments.length - 1;
      const part = await openTrace(
        segment.file,
        {
          ...openOptions,
          stitch: false,
          // Only the newest segment ends with an `end` line; older ones lacking it is rotation, not a crash.
          onDiagnostic: (d) => {
            if (last || d.code !== 'missing_end') openOptions.onDiagnostic(d);
          },
        },
        files,
      );
      await replaceUnlessLost(segment.file, redactedLines(part, redaction, false), () => errors);
    }
    return errors;
  }
  const lines = redactedLines(trace, redaction, true);
  if (options.inPlace) await replaceUnlessLost(input, lines, () => errors);
  else if (options.out !== undefined) await writePrivateFile(options.out, lines);
  else await writeStdout(lines);
  return errors;
}

/** A trace redact cannot rewrite in place: one read from a pipe. */
function refuseInPlace(input: string): void {
  if (readFromPipe(input)) {
    throw usageError(
      `--in-place needs a file, and ${input} is a pipe: write the redacted trace with -o FILE`,
    );
  }
}

/**
 * Replaces `path` with `lines` unless reading them left corrupt lines out (`errors()`, counted as they are read):
 * the original is then kept, since a line dropped from it would be gone for good.
 */
async function replaceUnlessLost(path: string, lines: AsyncIterable<string>, errors: () => number) {
  const before = errors();
  const kept: string[] = [];
  for await (const line of lines) kept.push(line);
  const lost = errors() - before;
  if (lost > 0) {
    throw new TapedeckError(
      'input',
      `${path} was not rewritten: its ${lost} corrupt line${lost === 1 ? '' : 's'} would be lost for good; write the redacted trace with -o FILE, or mend the line${lost === 1 ? '' : 's'} first`,
    );
  }
  await writePrivateFile(path, kept);
}

/**
 * The trace as redacted tapedeck JSONL lines. As one self-contained file (`single`) the meta says segment 0 and
 * names tapedeck as producer where the source named none, as `convert --to tapedeck` writes it.
 */
export async function* redactedLines(
  trace: Pick<OpenedTrace, 'meta' | 'lines'>,
  redaction: Redaction,
  single: boolean,
): AsyncGenerator<string> {
  const { redactor } = redaction;
  const meta = redactedMeta(trace.meta, redaction);
  if (single && meta.segment !== undefined) meta.segment = 0;
  if (meta.producer === undefined) meta.producer = { ...PRODUCER };
  yield encodeLine(meta);
  for await (const { line } of trace.lines()) yield encodeLine(redactor(line));
}

async function writeStdout(lines: AsyncIterable<string>): Promise<void> {
  const out = createOutput(process.stdout);
  try {
    for await (const block of batch(lines)) if (!(await out.write(block))) break;
  } finally {
    out.dispose();
  }
}
