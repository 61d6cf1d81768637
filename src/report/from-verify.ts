import type { ExchangeVerdict, VerifyReport } from '../live/verify.js';
import { differences, diffText } from './diff-text.js';
import type { Report, ReportCase, ReportContext } from './model.js';

/** What `tapedeck verify` knows besides the live run's report. */
export interface VerifyReportInput {
  /** The cassette, as the report names it. */
  cassette: string;
  report: VerifyReport;
  /** --allow-unanswered: a server request the recorded client never answered passes. */
  allowUnanswered: boolean;
  /** Cassette lines that could not be read: what they held was never checked. */
  corruptLines: number;
}

/**
 * `tapedeck verify` as a report: one case per recorded exchange (a match passes, a divergence fails with the
 * structural diff, a timeout or a server that went away is an error, a skipped exchange is skipped), one per
 * server request outside any exchange that diverged, one for requests the recorded client left unanswered, one for
 * corrupt cassette lines.
 *
 * @example verifyReport({ cassette: 's.jsonl', report, allowUnanswered: false, corruptLines: 0 }, context)
 */
export function verifyReport(input: VerifyReportInput, context: ReportContext): Report {
  const { report, cassette } = input;
  const several = report.sessions.length > 1;
  const cases: ReportCase[] = report.verdicts.map((verdict) => verdictCase(verdict, cassette, several));
  report.notes.forEach((note, i) => {
    cases.push({
      name: `server request ${i + 1} outside any exchange`,
      group: 'verify',
      kind: 'note',
      status: 'failed',
      message: note,
      location: { file: cassette },
    });
  });
  if (report.unanswered.length > 0) {
    const what = `the client side left ${report.unanswered.length} server request${report.unanswered.length === 1 ? '' : 's'} unanswered (${report.unanswered.join(', ')}), as it did in the recording`;
    cases.push({
      name: 'server requests the recorded client never answered',
      group: 'verify',
      kind: 'unanswered',
      status: input.allowUnanswered ? 'skipped' : 'failed',
      message: input.allowUnanswered
        ? `${what}; accepted (--allow-unanswered)`
        : `${what}; pass --allow-unanswered to accept it`,
      location: { file: cassette },
    });
  }
  if (input.corruptLines > 0) cases.push(corruptCase(cassette, input.corruptLines));
  return {
    version: 1,
    tool: context.tool,
    command: 'verify',
    title: `tapedeck verify ${cassette}`,
    startedAt: context.startedAt,
    durationMs: context.durationMs,
    suites: [{ name: `verify ${cassette}`, file: cassette, durationMs: context.durationMs, cases }],
  };
}

function verdictCase(verdict: ExchangeVerdict, cassette: string, several: boolean): ReportCase {
  const name = `${several ? `session ${verdict.session} ` : ''}#${verdict.ordinal} ${verdict.summary}`;
  const base: ReportCase = {
    name,
    group: verdict.method,
    kind: verdict.status,
    status: 'passed',
    durationMs: verdict.ms,
    location: { file: cassette, line: verdict.lineNo },
  };
  if (verdict.status === 'match') return base;
  if (verdict.status === 'skipped') return { ...base, status: 'skipped', message: verdict.reason };
  const details: string[] = [];
  if (verdict.httpStatus !== undefined)
    details.push(`the server refused the request with HTTP ${verdict.httpStatus} and this JSON-RPC error:`);
  details.push(...verdict.notes);
  if (verdict.diff) {
    const entries = verdict.diff.entries.map((e) => ({ path: e.path, left: e.recorded, right: e.live }));
    details.push(diffText(entries, verdict.diff.total, ['recorded', 'live']));
  }
  // No answer to compare: the check itself could not be made (a timeout, the server gone).
  if (verdict.reason !== undefined && !verdict.diff)
    return { ...base, status: 'error', kind: 'no-answer', message: verdict.reason, details: joined(details) };
  const message = verdict.diff
    ? `the live answer differs from the recorded one (${differences(verdict.diff.total)})`
    : (verdict.notes[0] ?? 'the live answer differs from the recorded one');
  return { ...base, status: 'failed', message, details: joined(details) };
}

function joined(lines: readonly string[]): string | undefined {
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/**
 * The case that says a file had corrupt lines, so what they held was never checked.
 *
 * @example corruptCase('s.jsonl', 2).message // → '2 corrupt lines in s.jsonl were skipped: what they held was never checked; fix or re-record it'
 */
export function corruptCase(file: string, n: number): ReportCase {
  return {
    name: `corrupt lines in ${file}`,
    group: 'input',
    kind: 'corrupt',
    status: 'error',
    message: `${n} corrupt line${n === 1 ? '' : 's'} in ${file} ${n === 1 ? 'was' : 'were'} skipped: what ${n === 1 ? 'it' : 'they'} held was never checked; fix or re-record it`,
    location: { file },
  };
}
