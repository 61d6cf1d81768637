import { basename } from 'node:path';
import type { Command } from 'commander';
import { findSecrets, TraceState } from '../../redact/index.js';
import { scanReport } from '../../report/from-scan.js';
import {
  renderScanJson,
  renderScanReport,
  type ScanFinding,
  type ScanReport,
  type ScanUnchecked,
} from '../../report/text/scan-report.js';
import type { TraceFiles } from '../../trace/import/files.js';
import { openTrace } from '../../trace/io.js';
import { DiagnosticLog, readFirstLine, type SegmentLine, type TraceDiagnostic } from '../../trace/reader.js';
import type { TraceLine } from '../../trace/types.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import {
  addReporterFlag,
  parseReporters,
  renderReport,
  reportClock,
  reportPath,
  writeReports,
} from '../flags/reporter.js';
import { addRuleFlags, type RuleFlags, redactedIo, redactionFrom } from '../flags/rules.js';
import { type CliIo, print, say, traceFiles, userPath } from '../io.js';
import { terminalWidth, useColor } from '../terminal.js';

interface ScanOptions extends RuleFlags {
  json?: boolean;
  format?: string;
  reporter: string[];
}

const FORMATS = ['text', 'json', 'sarif'] as const;
type ScanFormat = (typeof FORMATS)[number];

/**
 * `tapedeck scan <trace> [--json]`: reports what in a trace still looks like a secret — by the redaction rules in
 * force (built-in, config files, flags) and an entropy heuristic — with line, JSON path, rule and a masked preview.
 * Exits 1 when anything is found (or a corrupt line could not be checked), 0 when clean: a CI gate for fixtures.
 *
 * @example await run(['scan', 'test/fixtures/session.jsonl', '--json']);
 */
export function registerScan(program: Command, { io, action }: Cli): void {
  const command = program
    .command('scan')
    .description('Report what in a trace still looks like a secret; exits 1 when anything is found.')
    .argument(
      '<trace>',
      'trace file: tapedeck/mcp-tape JSONL, mcporter NDJSON, shack JSON, HTTP exchanges JSON, HAR',
    )
    .option('--json', 'print the findings as JSON ("version": 1); the same as --format json')
    .option('--format <format>', `what to print: ${FORMATS.join(' | ')} (SARIF 2.1.0, for code scanning)`);
  addReporterFlag(addRuleFlags(command, { mode: false }), ['junit', 'github', 'json', 'sarif'])
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  tapedeck scan test/fixtures/session.jsonl\n' +
        '  tapedeck scan traces/run.jsonl --json | jq .findings\n' +
        '  tapedeck scan fixtures/session.jsonl --format sarif > tapedeck.sarif   # for code scanning\n' +
        '  tapedeck scan fixtures/session.jsonl --reporter junit:reports/scan.xml --reporter github\n\n' +
        'Findings show a masked preview, never the value, in every format.\n' +
        'Run it before committing or sharing a trace; redaction is best-effort. Exit codes: 0 clean, 1 findings\n' +
        '(or corrupt lines that could not be checked), 2 a usage error.',
    )
    .action(
      action(async (input: string, options: ScanOptions) => {
        const clock = reportClock();
        const format = formatOf(options);
        const reporters = parseReporters(options.reporter, {
          formats: ['junit', 'github', 'json', 'sarif'],
          stdoutTakenBy: format === 'text' ? undefined : `--format ${format}`,
          cwd: io.cwd,
        });
        // What scan prints is redacted with the rules it scans by: a finding shows a masked preview, and anything
        // else from the trace (a file name, a diagnostic) hides what the trace should have hidden.
        const out = redactedIo(io, redactionFrom(options, io));
        const report = await scan(input, options, out);
        const named = {
          ...report,
          trace: reportPath(report.trace, io.cwd),
          findings: report.findings.map((f) => ({ ...f, file: reportPath(f.file, io.cwd) })),
        };
        if (format === 'json') await print(out, renderScanJson(report));
        else if (format === 'sarif')
          await print(out, renderReport('sarif', scanReport(named, clock.context()), out.redaction));
        else if (!reporters.replacesStdout)
          await print(
            out,
            renderScanReport(report, useColor(io.stdout, io.env), terminalWidth(io.stdout, io.env)),
          );
        if (reporters.reporters.length > 0)
          await writeReports(reporters, scanReport(named, clock.context()), {
            ...out,
            stdoutTaken: format !== 'text',
          });
        return report.findings.length > 0 || report.unreadable > 0 ? EXIT.finding : EXIT.ok;
      }),
    );
}

/** `--format`, or `--json` for json; both at once must agree. */
function formatOf(options: ScanOptions): ScanFormat {
  if (options.format === undefined) return options.json ? 'json' : 'text';
  const format = FORMATS.find((f) => f === options.format);
  if (format === undefined) throw usageError(`--format must be text, json or sarif; got '${options.format}'`);
  if (options.json && format !== 'json')
    throw usageError(`--json and --format ${format} ask for two formats: pass one of them`);
  return format;
}

/**
 * Scans a trace of any importable format, meta lines and file names included. What could not be looked inside (a
 * base64 run too long to decode, JSON nested too deep) is listed as unchecked.
 *
 * @example const { findings } = await scan('run.jsonl', { redact: ['ACME-[0-9]{8}'] }, io);
 */
export async function scan(input: string, options: RuleFlags, io: CliIo): Promise<ScanReport> {
  const { compiled } = redactionFrom(options, io);
  let unreadable = 0;
  const files = traceFiles(io);
  const trace = await openTrace(
    userPath(io, input),
    {
      onDiagnostic: (d: TraceDiagnostic) => {
        // A cut-off last line (a recorder killed mid-write) is only a warning to readers, but its text was not
        // checked either, and it is in the file that would be shared.
        if (d.severity === 'error' || d.code === 'truncated_line') unreadable += 1;
        // A trace still being written has no end line; that says nothing about secrets.
        if (d.code !== 'missing_end') say(io, `${d.severity}: ${d.message}`);
      },
      // Readers skip lines of a type they do not know, but those lines are in the file all the same.
      onUnknownLine: (line, file, lineNo, text) => check(line as unknown as TraceLine, file, lineNo, text),
      // A line's text gives each finding its column (tapedeck and mcp-tape files keep it).
      lineText: true,
    },
    files,
  );
  const findings: ScanFinding[] = [];
  const unchecked: ScanUnchecked[] = [];
  // One state for the whole trace, in order: a key printed line by line, and conn values that are session ids,
  // are found as the redactor would hide them.
  const state = new TraceState();
  let lines = 0;
  const check = (line: TraceLine, file: string, lineNo: number, text?: string) => {
    lines += 1;
    const onUnchecked = (path: string, what: string) => unchecked.push({ file, line: lineNo, path, what });
    const found = findSecrets(line, compiled, {
      state,
      onUnchecked,
      ...(text === undefined ? {} : { text }),
    });
    for (const { rule, path, preview, column } of found) {
      findings.push({ file, line: lineNo, path, rule, preview, ...(column === undefined ? {} : { column }) });
    }
  };
  const native = trace.format === 'tapedeck' || trace.format === 'mcp-tape';
  for (const segment of trace.segments) {
    // A secret in a file name (a label derived from a token argument) travels with the file too.
    // A file name travels with the file: the rules see it too (not the heuristic: tapedeck's own names, such as
    // `20261129T221733.123Z-server.jsonl`, look random to it). The meta line's label, command and url are the
    // engine's to check.
    const name: TraceLine = { type: 'text', t: '', dir: 'out', text: basename(segment.file) };
    for (const { rule, preview } of findSecrets(name, compiled, { entropy: false })) {
      findings.push({ file: segment.file, line: 0, path: '(file name)', rule, preview });
    }
    check(
      segment.meta,
      segment.file,
      native ? 1 : 0,
      native ? await metaText(files, segment.file) : undefined,
    );
  }
  for await (const { line, file, lineNo, text } of trace.lines()) check(line, file, lineNo, text);
  // Lines of an unknown type are heard of as their chunk is read, before the known lines around them: in file
  // order, then line order, the findings read as the file does.
  const order = new Map(trace.segments.map((segment, i) => [segment.file, i]));
  findings.sort((a, b) => (order.get(a.file) ?? 0) - (order.get(b.file) ?? 0) || a.line - b.line);
  const piped = files.fromPipe(input) ? { piped: true as const } : {};
  return { version: 1, trace: input, format: trace.format, lines, unreadable, ...piped, findings, unchecked };
}

/** The text of a native segment's first line (its meta), for the columns of what is found in it. */
async function metaText(files: TraceFiles, file: string): Promise<string | undefined> {
  const log = new DiagnosticLog('lenient');
  const first = (await readFirstLine(files.read(file), { file, log, lineText: true })) as
    | SegmentLine
    | undefined;
  return first?.line.type === 'meta' ? first.text : undefined;
}
