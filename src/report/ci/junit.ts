import { type CaseCounts, countCases, type Report, type ReportCase, type ReportSuite } from '../model.js';
import type { RedactedReport } from '../redacted.js';
import { xmlAttribute, xmlText } from './xml.js';

/**
 * JUnit XML, the test report every CI system reads: `testsuites` > `testsuite` > `testcase`, a failed case with a
 * `failure`, an error with an `error`, a skipped one with `skipped`, each carrying the one-line message as an
 * attribute and the message with its details (the structural diff) as text. Counts and times (seconds) on every
 * suite and on the whole; `file` and `line` on a case, which GitLab, Jenkins and the JUnit annotation actions
 * read to point at the cassette's line.
 */

/**
 * Renders a report as a JUnit XML document.
 *
 * @example writeFileSync('tapedeck.xml', renderJunit(report));
 */
export function renderJunit(report: RedactedReport): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(
    `<testsuites ${attributes({ name: report.title, ...countAttributes(countCases(report), report.durationMs) })}>`,
  );
  for (const suite of report.suites) out.push(...suiteLines(suite, report));
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

function suiteLines(suite: ReportSuite, report: Report): string[] {
  const head = attributes({
    name: suite.name,
    ...countAttributes(countCases(suite), suite.durationMs),
    // The JUnit schema's timestamp is a date and time without a zone; ours is UTC.
    timestamp: report.startedAt.slice(0, 19),
    file: suite.file,
  });
  return [
    `  <testsuite ${head}>`,
    '    <properties>',
    `      <property ${attributes({ name: 'tapedeck.command', value: report.command })}/>`,
    `      <property ${attributes({ name: 'tapedeck.version', value: report.tool.version })}/>`,
    '    </properties>',
    ...suite.cases.flatMap(caseLines),
    '  </testsuite>',
  ];
}

function caseLines(c: ReportCase): string[] {
  const head = `    <testcase ${attributes({
    name: c.name,
    classname: c.group,
    time: seconds(c.durationMs),
    file: c.location?.file,
    line: c.location?.line,
  })}`;
  if (c.status === 'passed') return [`${head}/>`];
  if (c.status === 'skipped')
    return [`${head}>`, `      <skipped ${attributes({ message: c.message })}/>`, '    </testcase>'];
  const element = c.status === 'failed' ? 'failure' : 'error';
  const body = [c.message, c.details].filter((part) => part !== undefined).join('\n\n');
  return [
    `${head}>`,
    `      <${element} ${attributes({ message: c.message ?? c.kind, type: c.kind })}>${xmlText(body)}</${element}>`,
    '    </testcase>',
  ];
}

function countAttributes(counts: CaseCounts, durationMs: number | undefined) {
  return {
    tests: counts.tests,
    failures: counts.failures,
    errors: counts.errors,
    skipped: counts.skipped,
    time: seconds(durationMs),
  };
}

/** JUnit times are seconds; an unknown time is 0, as the schema wants a number. */
function seconds(ms: number | undefined): string {
  return ((ms ?? 0) / 1000).toFixed(3);
}

/** `name="…" tests="3"`, in the order given, leaving out the undefined ones. */
function attributes(values: Record<string, string | number | undefined>): string {
  return Object.entries(values)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([name, value]) => `${name}="${xmlAttribute(String(value))}"`)
    .join(' ');
}
