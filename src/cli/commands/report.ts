import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { TapedeckError } from '../../base/errors.js';
import { BYTE_STYLES, formatBytes } from '../../base/units.js';
import { isLlmLine } from '../../llm/types.js';
import { openTrace, writePrivateFile } from '../../trace/io.js';
import type { TraceDiagnostic } from '../../trace/reader.js';
import { splitPath } from '../../trace/segments.js';
import type { RecordLine } from '../../trace/types.js';
import { type EmbeddedTrace, inlinedPage } from '../../view/viewer-assets.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { addLastFlag, type LastFlag, traceArguments } from '../flags/last.js';
import { addRuleFlags, type Redaction, type RuleFlags, redactedIo, redactionFrom } from '../flags/rules.js';
import { type CliIo, print, say, traceFiles, userPath } from '../io.js';
import { parsePositiveInt } from '../parse.js';
import { refuseLinkedOutput } from '../paths.js';
import { redactedLines, redactedMeta } from '../redact/trace.js';

export interface ReportOptions extends RuleFlags {
  out: string;
  /** Embed only the first N messages of each trace, and mark the cut. */
  maxMessages?: number | undefined;
}

/**
 * The most messages a report embeds unless told otherwise: a page holding more loads for tens of seconds and a
 * gigabyte of browser memory, where `tapedeck view` pages the same trace (src/view/paged/plan.ts). Higher than
 * the view's paging threshold: a report is the one self-contained file, so it stays whole while it still opens.
 */
export const REPORT_DEFAULTS = { maxMessages: 200_000 } as const;

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
  defaults: { maxMessages: number } = REPORT_DEFAULTS,
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
    // An LLM recorder's trace (record --llm) keeps its model calls in `llm` lines, which trace readers skip: they
    // are embedded as read (redacted like the rest), for the viewer's Agent view.
    const llm: RecordLine[] = [];
    const onUnknownLine = (line: Record<string, unknown>) => {
      if (isLlmLine(line)) llm.push(line as unknown as RecordLine);
    };
    const trace = await openTrace(userPath(io, path), { onDiagnostic, onUnknownLine }, traceFiles(io));
    const name = splitPath(trace.segments[trace.segments.length - 1]?.file ?? path).name;
    const text = await collect(trace, redaction, path, options.maxMessages, defaults.maxMessages, llm);
    labels.push(redactedMeta(trace.meta, redaction).label || name);
    traces.push({ path: `r${i}/${name}`, text });
  }
  const page = await inlinedPage(traces, [...new Set(labels)].join(' · '));
  await writePrivateFile(file, [page]);
  return { file, bytes: Buffer.byteLength(page), traces: traces.length, skipped };
}

/**
 * The trace's lines, redacted, as one JSONL text. Past `max` messages (when given) the rest is left out and an
 * event line marks the cut; past the default without `max`, the report is refused with what works instead.
 */
async function collect(
  trace: Awaited<ReturnType<typeof openTrace>>,
  redaction: Redaction,
  path: string,
  max: number | undefined,
  most: number,
  unknown: RecordLine[] = [],
): Promise<string> {
  const limit = max ?? most;
  const parts: string[] = [];
  let messages = 0;
  let cut: { t: string; seq: number | undefined } | undefined;
  let left = 0;
  const lines = async function* () {
    for await (const read of trace.lines()) {
      // LLM lines read before this one, in their place.
      for (const line of unknown.splice(0)) yield { ...read, line };
      const { line } = read;
      const message = line.type === undefined;
      if (message) messages++;
      if (messages > limit && (message || line.type !== 'end')) {
        if (max === undefined) throw tooBig(path, limit);
        cut ??= { t: line.t, seq: 'seq' in line ? line.seq : undefined };
        if (message) left++;
        continue;
      }
      if (cut && line.type === 'end') continue;
      yield read;
    }
    for (const line of unknown.splice(0)) yield { line, file: path, lineNo: 0, segment: 0 };
  };
  for await (const line of redactedLines({ meta: trace.meta, lines }, redaction, true)) parts.push(line);
  if (cut) {
    const marker = {
      t: cut.t,
      type: 'event',
      name: 'truncated',
      reason: 'report --max-messages',
      kept: limit,
      left,
    };
    parts.push(`${JSON.stringify(cut.seq === undefined ? marker : { ...marker, seq: cut.seq })}\n`);
  }
  return parts.join('');
}

/** One line: the trace is too big to embed, and what works instead. */
function tooBig(path: string, limit: number): TapedeckError {
  const n = limit.toLocaleString('en');
  return new TapedeckError(
    'input',
    `${path} holds more than ${n} messages, too many for one page: open it with \`tapedeck view ${path}\` ` +
      `(paged), or embed the first N with \`tapedeck report --max-messages N\` (the cut is marked)`,
  );
}

/** Registers `tapedeck report <trace…> -o report.html`. */
export function registerReport(program: Command, { io, action }: Cli): void {
  const command = program
    .command('report')
    .description('Write one self-contained HTML file with the viewer and the traces (redacted), for sharing.')
    .argument('[trace...]', 'trace files (any format tapedeck reads); rotated segments are stitched')
    .requiredOption('-o, --out <file>', 'the HTML file to write (mode 0600)')
    .option(
      '--max-messages <n>',
      `embed the first n messages of each trace and mark the cut (without it, a trace of more than ${REPORT_DEFAULTS.maxMessages.toLocaleString('en')} is refused)`,
      (value: string) => parsePositiveInt('--max-messages', value),
    )
    .option(
      '--llm <file>',
      "the LLM recorder's trace of the same run (record --llm), embedded beside: the Agent view draws model turns with their MCP calls",
    );
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
        '  tapedeck report mcp.jsonl --llm llm.jsonl -o run.html     # an agent run, with the Agent view',
        '',
        'Every line is redacted with the built-in rules, your redact config files and the flags before it is',
        'embedded. The page works offline from file:// and loads nothing from the network. Check what it holds',
        'with tapedeck scan on the traces first if in doubt.',
      ].join('\n'),
    )
    .action(
      action(async (traces: string[], options: ReportOptions & LastFlag & { llm?: string }) => {
        const named = traceArguments(traces, options, 'report', io);
        const paths = options.llm === undefined ? named : [...named, options.llm];
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
