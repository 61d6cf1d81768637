import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import { refuseLink } from '../../base/no-follow.js';
import { PRODUCER } from '../../base/version.js';
import type { OutputRedaction } from '../../redact/output.js';
import { CI_RENDERERS, type ReporterFormat } from '../../report/index.js';
import type { Report, ReportContext } from '../../report/model.js';
import { redactReport } from '../../report/redacted.js';
import { writePrivateFile } from '../../trace/io.js';
import { usageError } from '../errors.js';
import { refuseLinkedOutput } from '../paths.js';
import { createOutput } from '../stream/output.js';

/**
 * `--reporter junit[:FILE] | github | json[:FILE]` (and `sarif[:FILE]` on scan): CI reports besides a command's
 * usual output, as many as wanted. A reporter without a file writes to stdout — in place of the command's own
 * report there, since two documents on one stream read as neither. GitHub annotations are log lines, read by the
 * runner from stdout or stderr alike: they go to stdout beside the usual output, or to stderr when stdout carries
 * a document or (replay, run) the MCP session itself.
 */

export interface Reporter {
  format: ReporterFormat;
  /** The file it is written to; undefined: the report stream. */
  file: string | undefined;
}

/** Which reporters a command takes, and whether its stdout is already spoken for. */
export interface ReporterOptions {
  formats: readonly ReporterFormat[];
  /** What already writes a document to stdout (`--json`), or MCP_SESSION for replay and run. */
  stdoutTakenBy?: string | undefined;
  /** Where report files are relative to (the process's working folder by default). */
  cwd?: string | undefined;
}

/** Where each reporter without a file goes, and whether the command's own stdout report stays. */
export interface ReporterPlan {
  reporters: Reporter[];
  /** A reporter writes its document to stdout: the command prints its usual report nowhere. */
  replacesStdout: boolean;
}

const SHAPES: Record<ReporterFormat, string> = {
  junit: 'junit[:FILE]',
  github: 'github',
  json: 'json[:FILE]',
  sarif: 'sarif[:FILE]',
};

/**
 * Adds `--reporter` (repeatable) to a command.
 *
 * @example addReporterFlag(program.command('verify'), ['junit', 'github', 'json'])
 */
export function addReporterFlag(command: Command, formats: readonly ReporterFormat[]): Command {
  return command.option(
    '--reporter <name>',
    `a CI report besides the usual output: ${formats.map((f) => SHAPES[f]).join(' | ')} (repeatable)`,
    (value: string, previous: string[]) => [...previous, value],
    [] as string[],
  );
}

/**
 * Checks `--reporter` values before anything runs: a known format, a file only where one fits, no file named
 * twice, at most one document on stdout. Each refusal is one line naming the value and what to change.
 *
 * @example parseReporters(['junit:out/tapedeck.xml', 'github'], { formats: ['junit', 'github', 'json'] })
 * // → { reporters: [{ format: 'junit', file: 'out/tapedeck.xml' }, { format: 'github', file: undefined }], replacesStdout: false }
 */
export function parseReporters(values: readonly string[], options: ReporterOptions): ReporterPlan {
  const expected = options.formats.map((f) => SHAPES[f]);
  const listed = `${expected.slice(0, -1).join(', ')}${expected.length > 1 ? ' or ' : ''}${expected.at(-1)}`;
  const reporters = values.map((value): Reporter => {
    const at = value.indexOf(':');
    const name = at < 0 ? value : value.slice(0, at);
    const format = options.formats.find((f) => f === name);
    if (format === undefined) throw usageError(`--reporter must be ${listed}; got '${value}'`);
    if (at < 0) return { format, file: undefined };
    const file = value.slice(at + 1);
    if (format === 'github')
      throw usageError(
        `--reporter github takes no file: the runner reads annotations from the log; got '${value}'`,
      );
    if (file === '')
      throw usageError(`--reporter ${format}:FILE needs a file name after the colon; got '${value}'`);
    // Checked now, not when the report is written at the end of a run that did its work.
    refuseLinkedOutput('--reporter', value, resolve(options.cwd ?? process.cwd(), file));
    return { format, file };
  });
  const files = reporters.flatMap((r) =>
    r.file === undefined ? [] : [resolve(options.cwd ?? process.cwd(), r.file)],
  );
  const twice = files.find((file, i) => files.indexOf(file) !== i);
  if (twice !== undefined)
    throw usageError(`--reporter names ${twice} twice: give each report a file of its own`);
  const documents = reporters.filter((r) => r.file === undefined && r.format !== 'github');
  const [first, second] = documents;
  if (first && second)
    throw usageError(
      `--reporter ${first.format} and --reporter ${second.format} would both write to stdout: give one a file, e.g. --reporter ${withFile(second.format)}`,
    );
  if (first && options.stdoutTakenBy !== undefined)
    throw usageError(
      options.stdoutTakenBy === MCP_SESSION
        ? `--reporter ${first.format} needs a file here: stdout carries the MCP session; e.g. --reporter ${withFile(first.format)}`
        : `--reporter ${first.format} and ${options.stdoutTakenBy} would both write to stdout: give the reporter a file, e.g. --reporter ${withFile(first.format)}`,
    );
  return { reporters, replacesStdout: first !== undefined };
}

/** What `stdoutTakenBy` says for replay and run, whose stdout is the protocol. */
export const MCP_SESSION = 'the MCP session';

function withFile(format: ReporterFormat): string {
  return `${format}:tapedeck.${format === 'junit' ? 'xml' : format}`;
}

/** Where reports without a file go. */
export interface ReportStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Relative report files are written against it. */
  cwd: string;
  /** stdout carries the MCP session (replay, run) or a document (--json): nothing else may go there. */
  stdoutTaken: boolean;
  /** The trace's redaction, which every report's text goes through before any format renders it. */
  redaction: OutputRedaction;
}

/**
 * Redacts the report with the trace's rules, renders it once per reporter and writes it: to its file (0600,
 * atomically, never through a link in its place), else to stdout — or stderr when stdout is taken, and always for
 * GitHub annotations next to a document.
 *
 * @example await writeReports(plan, report, { ...io, stdoutTaken: false, redaction });
 */
export async function writeReports(
  plan: ReporterPlan,
  report: Report,
  streams: ReportStreams,
): Promise<void> {
  const redacted = redactReport(report, streams.redaction);
  for (const reporter of plan.reporters) {
    const text = CI_RENDERERS[reporter.format](redacted);
    if (reporter.file !== undefined) {
      const path = resolve(streams.cwd, reporter.file);
      refuseLink(path);
      await writePrivateFile(path, [text]);
      continue;
    }
    const documentOnStdout = plan.replacesStdout && reporter.format === 'github';
    const toStderr = streams.stdoutTaken || documentOnStdout;
    const out = createOutput(toStderr ? streams.stderr : streams.stdout, toStderr ? 'stderr' : 'stdout');
    try {
      await out.write(text);
    } finally {
      out.dispose();
    }
  }
}

/**
 * A path as reports name it: relative to the working folder when inside it (annotations and code scanning resolve
 * paths against the checkout), with forward slashes.
 *
 * @example reportPath('/repo/fixtures/s.jsonl', '/repo') // → 'fixtures/s.jsonl'
 */
export function reportPath(path: string, cwd: string): string {
  const absolute = resolve(cwd, path);
  const inside = relative(cwd, absolute);
  const shown = inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) ? inside : absolute;
  return shown.split(sep).join('/');
}

/**
 * Starts timing a command for its report; `context()` gives the start and the time since.
 *
 * @example const clock = reportClock(); …; verifyReport(input, clock.context())
 */
export function reportClock(now: () => number = Date.now): { context(): ReportContext } {
  const started = now();
  return {
    context: () => ({
      startedAt: new Date(started).toISOString(),
      durationMs: now() - started,
      tool: { name: PRODUCER.name, version: PRODUCER.version },
    }),
  };
}

/**
 * One report rendered in one format, redacted with the trace's rules: for a command whose own output is such a
 * document (`scan --format sarif`).
 *
 * @example await print(io, renderReport('sarif', scanReport(named, context), redaction));
 */
export function renderReport(format: ReporterFormat, report: Report, redaction: OutputRedaction): string {
  return CI_RENDERERS[format](redactReport(report, redaction));
}
