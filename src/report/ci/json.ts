import { countCases, reportPassed } from '../model.js';
import type { RedactedReport } from '../redacted.js';

/**
 * The report as JSON (`"version": 1`): the same shape for every command, so one script reads verify, diff,
 * replay, run and scan alike. `ok` is what exit code 0 means; counts are given for the whole and for each suite.
 *
 * @example JSON.parse(renderJsonReport(report)).counts // → { tests: 7, passed: 5, failures: 2, errors: 0, skipped: 0 }
 */
export function renderJsonReport(report: RedactedReport): string {
  const document = {
    version: report.version,
    tool: report.tool,
    command: report.command,
    title: report.title,
    ok: reportPassed(report),
    counts: countCases(report),
    startedAt: report.startedAt,
    durationMs: report.durationMs,
    suites: report.suites.map((suite) => ({ ...suite, counts: countCases(suite) })),
    ...(report.rules === undefined ? {} : { rules: report.rules }),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
