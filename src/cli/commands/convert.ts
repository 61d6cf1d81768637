import type { Command } from 'commander';
import { toHar } from '../../redact/har.js';
import { toMcpTape } from '../../trace/export/mcp-tape.js';
import { toMcporter } from '../../trace/export/mcporter.js';
import { toTapedeck } from '../../trace/export/tapedeck.js';
import type { OpenedTrace } from '../../trace/import/opened.js';
import { batch, openTrace, writePrivateFile } from '../../trace/io.js';
import type { TraceDiagnostic } from '../../trace/reader.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { addRuleFlags, type Redaction, type RuleFlags, redactedIo, redactionFrom } from '../flags/rules.js';
import { type CliIo, say, traceFiles, userPath } from '../io.js';
import { refuseLinkedOutput } from '../paths.js';
import { redactedMeta } from '../redact/trace.js';
import { createOutput } from '../stream/output.js';

/** Output formats of `convert`. The input format is detected from content. */
export const CONVERT_TARGETS = ['tapedeck', 'mcp-tape', 'mcporter', 'har'] as const;
export type ConvertTarget = (typeof CONVERT_TARGETS)[number];

interface ConvertOptions extends RuleFlags {
  to: string;
  out?: string;
  strict?: boolean;
  server?: string;
}

/**
 * `tapedeck convert <in> --to tapedeck|mcporter|har [-o OUT] [--strict]`: reads any trace format tapedeck knows
 * (tapedeck/mcp-tape JSONL with rotated segments stitched, mcporter NDJSON, shack trajectory JSON, HTTP exchanges
 * JSON) and writes it as the target format, to stdout or to a private file (0600, new folders 0700).
 *
 * @example await run(['convert', 'a.ndjson', '--to', 'tapedeck'], io);
 */
export function registerConvert(program: Command, { io, action }: Cli): void {
  addRuleFlags(program.command('convert'))
    .description('Convert a trace to another format (the input format is detected from its content).')
    .argument(
      '<in>',
      'trace file: tapedeck/mcp-tape JSONL, mcporter NDJSON, shack trajectory JSON, HTTP exchanges JSON, HAR',
    )
    .requiredOption('--to <format>', `output format: ${CONVERT_TARGETS.join(' | ')}`)
    .option('-o, --out <file>', 'write to this file (mode 0600, new folders 0700) instead of stdout')
    .option('--strict', 'stop at the first corrupt line instead of skipping it with a warning')
    .option(
      '--server <name>',
      "mcporter: the server name written (default: the trace's server or label); lines naming their own keep it",
    )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  tapedeck convert ~/.mcporter/recordings/session.ndjson --to tapedeck -o session.jsonl\n' +
        '  tapedeck convert traces/run.jsonl --to mcporter --server everything > run.ndjson\n' +
        '  tapedeck convert traces/run.jsonl --to mcp-tape -o run.mcp-tape.jsonl   (meta, message and end lines only)\n' +
        '  tapedeck convert traces/remote.jsonl --to har -o remote.har   (an HTTP recording, for browser dev tools)\n\n' +
        'Rotated traces (run.jsonl, run.1.jsonl …) are stitched back into one file whichever segment is named.\n' +
        "What is written is redacted as a recording is (another tool's file may hold credentials in the clear);\n" +
        'a trace tapedeck recorded comes through as it is.\n' +
        'Warnings about the input (corrupt lines skipped, a missing end line) go to stderr.',
    )
    .action(
      action(async (input: string, options: ConvertOptions) =>
        (await convert(input, options, io)) > 0 ? EXIT.input : EXIT.ok,
      ),
    );
}

/** Converts; resolves to the number of corrupt input lines that were skipped. */
async function convert(input: string, options: ConvertOptions, io: CliIo): Promise<number> {
  const target = parseTarget(options.to);
  if (options.server !== undefined && target !== 'mcporter') {
    throw usageError(`--server names the server of an mcporter file; --to ${target} takes none`);
  }
  if (options.server !== undefined && options.server.trim() === '') {
    throw usageError("--server needs a name, e.g. --server everything (the name in mcporter's config)");
  }
  if (options.out !== undefined) refuseLinkedOutput('-o', options.out, userPath(io, options.out));
  // What is written and what is said are redacted as a recording is: a converted file is an export, and another
  // tool's file (mcporter's NDJSON, a HAR) may hold credentials in the clear. Markers redact to themselves, so a
  // trace tapedeck recorded comes through as it is.
  const redaction = redactionFrom(options, io);
  const notices = redactedIo(io, redaction);
  let errors = 0;
  const opened = await openTrace(
    userPath(io, input),
    {
      mode: options.strict ? 'strict' : 'lenient',
      onDiagnostic: (d: TraceDiagnostic) => {
        if (d.severity === 'error') errors += 1;
        say(notices, `${d.severity}: ${d.message}`);
      },
    },
    traceFiles(io),
  );
  const trace = redactedTrace(opened, redaction);
  const dropped = new Map<string, number>();
  const onDropped = (_entry: unknown, reason: string) => dropped.set(reason, (dropped.get(reason) ?? 0) + 1);
  const chunks =
    target === 'tapedeck'
      ? toTapedeck(trace)
      : target === 'har'
        ? [await toHar(trace, input, { redact: redaction.compiled })]
        : target === 'mcp-tape'
          ? toMcpTape(trace, { onDropped })
          : toMcporter(trace, { onDropped, server: options.server });
  if (options.out === undefined) await writeStdout(chunks, io);
  else await writePrivateFile(userPath(io, options.out), chunks);
  for (const [reason, count] of dropped)
    say(notices, `warning: ${count} line${count === 1 ? '' : 's'} left out: ${reason}`);
  return errors;
}

/** The trace as an export writes it: its meta and every line through the redaction, read lazily. */
function redactedTrace(trace: OpenedTrace, redaction: Redaction): Pick<OpenedTrace, 'meta' | 'lines'> {
  // The meta says which rules hid what; a trace that already says so (tapedeck recorded it) keeps its own words.
  const meta = redactedMeta(trace.meta, redaction);
  if (trace.meta.redaction !== undefined) meta.redaction = trace.meta.redaction;
  return {
    meta,
    async *lines() {
      for await (const entry of trace.lines()) yield { ...entry, line: redaction.redactor(entry.line) };
    },
  };
}

/** Validates --to before anything is read, naming the bad value and the valid ones. */
function parseTarget(value: string): ConvertTarget {
  const target = CONVERT_TARGETS.find((t) => t === value);
  if (target === undefined) {
    throw usageError(`--to must be one of ${CONVERT_TARGETS.join(', ')}; got '${value}'`);
  }
  return target;
}

/**
 * Writes through the one stdout writer, block by block: converting a multi-GB trace into a slow pipe does not
 * buffer it all, and a reader that stops early (`| head`) ends the conversion quietly — its choice, not a failure.
 */
async function writeStdout(chunks: AsyncIterable<string> | Iterable<string>, io: CliIo): Promise<void> {
  const out = createOutput(io.stdout);
  try {
    for await (const block of batch(chunks)) if (!(await out.write(block))) return;
  } finally {
    out.dispose();
  }
}
