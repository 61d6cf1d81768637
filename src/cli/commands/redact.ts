import type { Command } from 'commander';
import { TapedeckError } from '../../base/errors.js';
import { batch, noFollowTraceFiles, openTrace, writePrivateFile } from '../../trace/io.js';
import type { TraceDiagnostic } from '../../trace/reader.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { addRuleFlags, type RuleFlags, redactedIo, redactionFrom } from '../flags/rules.js';
import { type CliIo, say, traceFiles, userPath } from '../io.js';
import { refuseLinkedOutput } from '../paths.js';
import { type KeptFormat, redactedInFormat } from '../redact/formats.js';
import { redactedLines } from '../redact/trace.js';
import { createOutput } from '../stream/output.js';

interface RedactOptions extends RuleFlags {
  out?: string;
  inPlace?: boolean;
  strict?: boolean;
}

/**
 * `tapedeck redact <trace> [-o OUT | --in-place]`: applies the redaction rules to an existing trace of any
 * importable format and writes it in the same format, to stdout, to a private file, or over the original.
 *
 * @example await run(['redact', 'old.jsonl', '--in-place', '--redact', '\\bACME-[0-9]{8}\\b']);
 */
export function registerRedact(program: Command, { io, action }: Cli): void {
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
    .action(
      action(async (input: string, options: RedactOptions) =>
        (await redact(input, options, io)) > 0 ? EXIT.input : EXIT.ok,
      ),
    );
}

/** Redacts; resolves to the number of corrupt input lines left out. */
async function redact(input: string, options: RedactOptions, io: CliIo): Promise<number> {
  if (options.out !== undefined && options.inPlace) {
    throw usageError(
      '-o and --in-place cannot be used together; write a redacted copy with -o, or replace the trace with --in-place',
    );
  }
  const redaction = redactionFrom(options, io);
  // A diagnostic may quote a line it could not read: said with the same rules.
  const notices = redactedIo(io, redaction);
  const file = userPath(io, input);
  const out = options.out === undefined ? undefined : userPath(io, options.out);
  if (out !== undefined) refuseLinkedOutput('-o', options.out!, out);
  let errors = 0;
  const openOptions = {
    mode: options.strict ? ('strict' as const) : ('lenient' as const),
    onDiagnostic: (d: TraceDiagnostic) => {
      if (d.severity === 'error') errors += 1;
      say(notices, `${d.severity}: ${d.message}`);
    },
  };
  // A trace rewritten in place is read without following links: a link's target would be copied into its folder.
  const files = options.inPlace && input !== '-' ? noFollowTraceFiles : traceFiles(io);
  const trace = await openTrace(file, openOptions, files);
  if (options.inPlace) refuseInPlace(file, io);
  if (trace.format !== 'tapedeck' && trace.segments.length <= 1) {
    // Another tool's file stays a file of that tool: mcporter can still replay it, a HAR viewer still open it.
    const onCorrupt = (lineNo: number, why: string) => {
      errors += 1;
      say(notices, `error: ${input} line ${lineNo}: ${why}`);
    };
    const kept = () => redactedInFormat(file, trace.format as KeptFormat, redaction, onCorrupt, files);
    if (options.inPlace) await replaceUnlessLost(file, kept(), () => errors);
    else if (out !== undefined) await writePrivateFile(out, kept());
    else await writeStdout(kept(), io);
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
  if (options.inPlace) await replaceUnlessLost(file, lines, () => errors);
  else if (out !== undefined) await writePrivateFile(out, lines);
  else await writeStdout(lines, io);
  return errors;
}

/** A trace redact cannot rewrite in place: one read from a pipe. */
function refuseInPlace(input: string, io: CliIo): void {
  if (traceFiles(io).fromPipe(input)) {
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

async function writeStdout(lines: AsyncIterable<string>, io: CliIo): Promise<void> {
  const out = createOutput(io.stdout);
  try {
    for await (const block of batch(lines)) if (!(await out.write(block))) break;
  } finally {
    out.dispose();
  }
}
