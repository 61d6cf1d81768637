import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { BYTE_STYLES, formatBytes } from '../../base/units.js';
import { openTrace, writePrivateFile } from '../../trace/io.js';
import type { TraceDiagnostic } from '../../trace/reader.js';
import { splitPath } from '../../trace/segments.js';
import { type EmbeddedTrace, inlinedPage } from '../../view/viewer-assets.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { addLastFlag, type LastFlag, traceArguments } from '../flags/last.js';
import { addRuleFlags, type Redaction, type RuleFlags, redactedIo, redactionFrom } from '../flags/rules.js';
import { type CliIo, print, say, traceFiles, userPath } from '../io.js';
import { refuseLinkedOutput } from '../paths.js';
import { redactedLines, redactedMeta } from '../redact/trace.js';

export interface ReportOptions extends RuleFlags {
  out: string;
}

export interface ReportResult {
  /** Where the report was written. */
  file: string;
  bytes: number;
  traces: number;
  /** Corrupt input lines left out (they cannot be redacted, so they are never embedded). */
  skipped: number;
}

/**
 * Reads each trace (any format; rotated segments stitched), redacts every line with the redaction rules (the
 * built-in ones unless --no-redact-defaults, plus config files and flags), and embeds the result in one
 * self-contained HTML page with the viewer inlined. The page loads nothing and sends nothing: it works from
 * file://, offline.
 *
 * @example await writeReport(['calls.jsonl'], { out: 'report.html' }, io);
 */
export async function writeReport(
  paths: readonly string[],
  options: ReportOptions,
  io: CliIo,
  warn: (d: TraceDiagnostic) => void = () => {},
): Promise<ReportResult> {
  if (paths.length === 0) throw usageError('give at least one trace file');
  if (paths.filter((path) => path === '-').length > 1)
    throw usageError(
      'report reads one trace from standard input (-), not several: save the others to files and name them',
    );
  const file = resolve(io.cwd, options.out);
  refuseLinkedOutput('-o', options.out, file);
  const redaction = redactionFrom(options, io);
  const traces: EmbeddedTrace[] = [];
  const labels: string[] = [];
  let skipped = 0;
  for (const [i, path] of paths.entries()) {
    const onDiagnostic = (d: TraceDiagnostic) => {
      if (d.severity === 'error') skipped += 1;
      warn(d);
    };
    // A trace that cannot be read is bad input (exit 1), as for show and stats, not a usage error.
    const trace = await openTrace(userPath(io, path), { onDiagnostic }, traceFiles(io));
    const name = splitPath(trace.segments[trace.segments.length - 1]?.file ?? path).name;
    const text = await collect(trace, redaction);
    labels.push(redactedMeta(trace.meta, redaction).label || name);
    traces.push({ path: `r${i}/${name}`, text });
  }
  const page = await inlinedPage(traces, [...new Set(labels)].join(' · '));
  await writePrivateFile(file, [page]);
  return { file, bytes: Buffer.byteLength(page), traces: traces.length, skipped };
}

async function collect(trace: Awaited<ReturnType<typeof openTrace>>, redaction: Redaction): Promise<string> {
  const parts: string[] = [];
  for await (const line of redactedLines(trace, redaction, true)) parts.push(line);
  return parts.join('');
}

/** Registers `tapedeck report <trace…> -o report.html`. */
export function registerReport(program: Command, { io, action }: Cli): void {
  const command = program
    .command('report')
    .description('Write one self-contained HTML file with the viewer and the traces (redacted), for sharing.')
    .argument('[trace...]', 'trace files (any format tapedeck reads); rotated segments are stitched')
    .requiredOption('-o, --out <file>', 'the HTML file to write (mode 0600)');
  addRuleFlags(addLastFlag(command), { mode: true })
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  tapedeck report traces/everything.jsonl -o report.html',
        '  tapedeck report before.jsonl after.jsonl -o compare.html   # both traces, with the Diff view',
        "  tapedeck report run.jsonl -o report.html --redact 'ACME-[0-9]{8}'",
        '  tapedeck report --last -o report.html                     # the newest recorded trace',
        '',
        'Every line is redacted with the built-in rules, your redact config files and the flags before it is',
        'embedded. The page works offline from file:// and loads nothing from the network. Check what it holds',
        'with tapedeck scan on the traces first if in doubt.',
      ].join('\n'),
    )
    .action(
      action(async (traces: string[], options: ReportOptions & LastFlag) => {
        const paths = traceArguments(traces, options, 'report', io);
        // A diagnostic may quote a line it could not read: said with the trace's rules.
        const notices = redactedIo(io, redactionFrom(options, io));
        const result = await writeReport(paths, options, io, (d) =>
          say(notices, `${d.severity}: ${d.message}`),
        );
        const size = formatBytes(result.bytes, BYTE_STYLES.file);
        await print(
          io,
          `tapedeck: wrote ${result.file} (${result.traces} ${result.traces === 1 ? 'trace' : 'traces'}, ${size}); open ${pathToFileURL(result.file).href}\n`,
        );
        return result.skipped > 0 ? EXIT.input : EXIT.ok;
      }),
    );
}
