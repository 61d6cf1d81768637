import type { Report, ReportCase } from '../model.js';
import type { RedactedReport } from '../redacted.js';

/**
 * GitHub Actions workflow commands: one `::error …::…` (or `::warning`) line per failed or error case, which the
 * runner turns into an annotation on the file and line it names — in the job summary and on the pull request's
 * diff. Passed and skipped cases print nothing. GitHub shows ten annotations of each level per step; the rest stay
 * in the log.
 *
 * Escaping follows the runner's parser: in the message `%`, CR and LF are percent-encoded (a multi-line diff
 * becomes one line the annotation shows on several); in a property `:` and `,` are too, since they end the
 * property list and separate properties.
 */

/**
 * Escapes an annotation's message.
 *
 * @example escapeData('50%\nnext') // → '50%25%0Anext'
 */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/**
 * Escapes a property value (`title=`, `file=`).
 *
 * @example escapeProperty('a: b, c') // → 'a%3A b%2C c'
 */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * Renders a report as workflow commands, one per line; empty when nothing failed.
 *
 * @example process.stdout.write(renderGithub(report)); // ::error file=s.jsonl,line=8,title=…::…
 */
export function renderGithub(report: RedactedReport): string {
  const lines: string[] = [];
  for (const suite of report.suites)
    for (const c of suite.cases) {
      if (c.status === 'passed' || c.status === 'skipped') continue;
      lines.push(annotation(c, report));
    }
  return lines.map((line) => `${line}\n`).join('');
}

function annotation(c: ReportCase, report: Report): string {
  const level = c.severity === 'warning' ? 'warning' : c.severity === 'note' ? 'notice' : 'error';
  const properties: [string, string | number | undefined][] = [
    ['file', c.location?.file],
    ['line', c.location?.line],
    ['col', c.location?.line === undefined ? undefined : c.location.column],
    ['title', `tapedeck ${report.command}: ${c.name}`],
  ];
  const list = properties
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([name, value]) => `${name}=${escapeProperty(String(value))}`)
    .join(',');
  const message = [c.message ?? c.kind, c.details].filter((part) => part !== undefined).join('\n');
  return `::${level} ${list}::${escapeData(message)}`;
}
