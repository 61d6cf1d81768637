import type { OutputRedaction } from '../redact/output.js';
import type { Report, ReportCase, ReportLocation, ReportSuite } from './model.js';

/**
 * What the CI formats render: a report every text of which went through the trace's redaction. Every renderer
 * (ci/junit.ts, ci/github.ts, ci/json.ts, ci/sarif.ts) takes this type and no other, and only {@link redactReport} makes one,
 * so a format added later renders redacted text without having to remember to: what a case names, says and
 * details — a request in short, a diff's values, a server's error, a fault's resource URI — may come from traffic.
 */
export type RedactedReport = Report & { readonly [REDACTED]: true };

declare const REDACTED: unique symbol;

/**
 * The report with every text in it redacted (names, groups, messages, details, file names, the title and the rule
 * descriptions); counts, statuses and numbers are kept. Markers redact to themselves, so text redacted as data
 * before (a verify diff) stays as it was.
 *
 * @example renderJunit(redactReport(verifyReport(input, context), redaction))
 */
export function redactReport(report: Report, redaction: OutputRedaction): RedactedReport {
  const text = (value: string) => redaction.text(value);
  const optional = (value: string | undefined) => (value === undefined ? undefined : text(value));
  const location = (where: ReportLocation | undefined): ReportLocation | undefined =>
    where === undefined ? undefined : { ...where, file: text(where.file) };
  const shownCase = (c: ReportCase): ReportCase => ({
    ...c,
    name: text(c.name),
    group: text(c.group),
    message: optional(c.message),
    details: optional(c.details),
    location: location(c.location),
  });
  const suite = (s: ReportSuite): ReportSuite => ({
    ...s,
    name: text(s.name),
    file: optional(s.file),
    cases: s.cases.map(shownCase),
  });
  const redacted: Report = {
    ...report,
    title: text(report.title),
    suites: report.suites.map(suite),
    rules: report.rules?.map((rule) => ({
      ...rule,
      description: text(rule.description),
      help: text(rule.help),
    })),
  };
  return redacted as RedactedReport;
}
