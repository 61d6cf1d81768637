import type { Command } from 'commander';
import type { CompiledRules } from '../../redact/compile.js';
import { redactorOf } from '../../redact/engine.js';
import { compileIgnorePath, type IgnorePath } from '../../replay/cassette/paths.js';
import { diffReport } from '../../report/from-diff.js';
import { type DiffSide, diffDocument, renderDiff } from '../../report/text/diff-report.js';
import { alignTraces, type TraceAlignment } from '../../trace/align.js';
import type { Exchange } from '../../trace/exchange.js';
import { loadTrace } from '../../trace/io.js';
import type { TraceDiagnostic } from '../../trace/reader.js';
import type { TraceLine } from '../../trace/types.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { addReporterFlag, parseReporters, reportClock, reportPath, writeReports } from '../flags/reporter.js';
import { redactedIo, redactionFrom } from '../flags/rules.js';
import { type CliIo, print, say, traceFiles, userPath } from '../io.js';
import { terminalWidth, useColor } from '../terminal.js';

export interface DiffFlags {
  json?: boolean;
  ignore: string[];
  server?: string;
  all?: boolean;
  /** `--reporter` values: CI reports besides the diff. */
  reporter?: string[];
}

/**
 * The terminal report shortens values itself as it prints them (so a big object reads as JSON cut short, not as a
 * quoted string of JSON); the JSON document keeps more of each, and more of them.
 */
const DIFF_LIMITS = {
  json: { maxEntries: 50, maxValueLength: 400 },
  text: { maxValueLength: Number.MAX_SAFE_INTEGER },
};

/**
 * One trace read whole: its lines for alignment and how to name it (as the user wrote it) in the report. The lines
 * are redacted as a recording is (a trace tapedeck recorded already is, and comes back as it was), so what the diff
 * shows of a trace recorded by another tool hides what a tapedeck trace would.
 */
async function readSide(path: string, io: CliIo, warn: (d: TraceDiagnostic) => void, rules: CompiledRules) {
  const trace = await loadTrace(userPath(io, path), { onDiagnostic: warn }, traceFiles(io));
  const redact = redactorOf(rules);
  const lines: TraceLine[] = [trace.meta, ...trace.entries.map((entry) => entry.line)].map(redact);
  const side: DiffSide = {
    path,
    format: trace.format,
    label: trace.meta.label,
    startedAt: trace.meta.startedAt,
    // Pairing counts the meta as input line 0; entry i is input line i + 1.
    lineOf: (exchange: Exchange) => trace.entries[exchange.requestRef.index - 1]?.lineNo,
  };
  return { lines, side };
}

/**
 * Lines two traces up request by request and prints what changed. Resolves to the exit code: 0 the same, 1 they
 * differ (or a trace had corrupt lines), 2 usage.
 *
 * @example const code = await diffCommand('before.jsonl', 'after.jsonl', { ignore: [] }, processIo());
 */
export async function diffCommand(
  pathA: string,
  pathB: string,
  flags: DiffFlags,
  io: CliIo,
): Promise<number> {
  const clock = reportClock();
  if (pathA === '-' && pathB === '-')
    throw usageError(
      'diff reads one trace from standard input (-), not both: save one of them to a file and name it',
    );
  const ignore = compileFlags(flags.ignore);
  const reporters = parseReporters(flags.reporter ?? [], {
    formats: ['junit', 'github', 'json'],
    stdoutTakenBy: flags.json ? '--json' : undefined,
    cwd: io.cwd,
  });
  const redaction = redactionFrom({}, io);
  const out = redactedIo(io, redaction);
  let corrupt = 0;
  const warn = (d: TraceDiagnostic) => {
    if (d.severity === 'error') corrupt += 1;
    // A live or crashed recording has no end line: nothing the diff needs.
    if (d.code !== 'missing_end') say(out, `${d.severity}: ${d.message}`);
  };
  const [a, b] = [
    await readSide(pathA, io, warn, redaction.compiled),
    await readSide(pathB, io, warn, redaction.compiled),
  ];
  const alignment: TraceAlignment = alignTraces(a.lines, b.lines, {
    ignore,
    server: flags.server,
    labels: [pathA, pathB],
    diff: flags.json ? DIFF_LIMITS.json : DIFF_LIMITS.text,
  });
  const sides = [a.side, b.side] as const;
  if (flags.json) await print(out, `${JSON.stringify(diffDocument(alignment, sides), null, 2)}\n`);
  else if (!reporters.replacesStdout)
    await print(
      out,
      renderDiff(alignment, sides, {
        color: useColor(io.stdout, io.env),
        all: flags.all === true,
        width: terminalWidth(io.stdout, io.env),
      }),
    );
  if (reporters.reporters.length > 0) {
    const named = sides.map((side) => ({ file: reportPath(side.path, io.cwd), lineOf: side.lineOf }));
    const report = diffReport(
      { alignment, sides: [named[0]!, named[1]!], corruptLines: corrupt },
      clock.context(),
    );
    await writeReports(reporters, report, { ...out, stdoutTaken: flags.json === true });
  }
  return alignment.summary.identical && corrupt === 0 ? EXIT.ok : EXIT.finding;
}

function compileFlags(paths: readonly string[]): IgnorePath[] {
  return paths.map((path) => {
    try {
      return compileIgnorePath(path);
    } catch (err) {
      throw usageError(`--ignore '${path}': ${(err as Error).message.replace(/^bad ignore path: /, '')}`);
    }
  });
}

/** Registers `tapedeck diff <a> <b> [--json] [--ignore PATH…] [--server NAME] [--all]`. */
export function registerDiff(program: Command, { io, action }: Cli): void {
  const command = program
    .command('diff')
    .description(
      'Line two traces up request by request and show what was added, removed or answered differently.',
    )
    .argument(
      '<a>',
      'the first trace: tapedeck / mcp-tape JSONL, mcporter NDJSON, shack JSON, HTTP exchanges JSON or HAR',
    )
    .argument('<b>', 'the second trace, compared with the first')
    .option(
      '--ignore <path>',
      'leave this JSONPath of requests or answers out, e.g. $.result.content[0].text (repeatable)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--server <name>', 'compare only this server of traces that hold several (mcporter)')
    .option('--json', 'print the diff as JSON (a stable shape, "version": 1)')
    .option('--all', 'print every unchanged request instead of folding long runs of them');
  addReporterFlag(command, ['junit', 'github', 'json'])
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  tapedeck diff traces/before.jsonl traces/after.jsonl',
        "  tapedeck diff before.jsonl after.jsonl --ignore '$.result.content[0].text' --ignore '$.params.arguments.ts'",
        '  tapedeck diff run1.ndjson run2.ndjson --server github --json | jq \'.items[] | select(.kind != "same")\'',
        '  tapedeck diff before.jsonl after.jsonl --reporter junit:reports/diff.xml --reporter github',
        '',
        'Requests are matched as replay matches them: method and params, without ids, progress tokens, trace context',
        "or initialize's client details. Markers: = same, ~ changed (a changed argument or answer: path: a → b),",
        '- only in a, + only in b. Latency is b minus a.',
        '',
        'Exit codes: 0 the traces are the same, 1 they differ (or a trace is unreadable), 2 a usage error.',
      ].join('\n'),
    )
    .action(action((a: string, b: string, flags: DiffFlags) => diffCommand(a, b, flags, io)));
}
