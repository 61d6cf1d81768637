import { PACKAGE_NAME } from '../../base/version.js';
import type { ReportCase, ReportRule } from '../model.js';
import type { RedactedReport } from '../redacted.js';

/**
 * SARIF 2.1.0, the format code scanning reads (GitHub's among others): one run whose tool lists the rules the
 * findings name, one result per finding with its rule, level, message and location (file, line, column), so a
 * leaked secret in a committed cassette shows as an alert on its line. A result's message carries the masked
 * preview only — the value never appears — and no region carries a snippet of the line. Checks that could not be
 * made (corrupt lines) are the invocation's notifications, and make it unsuccessful.
 */

export const SARIF_SCHEMA =
  'https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/schemas/sarif-schema-2.1.0.json';

/** Where people read about the tool that produced the log: the package's page on npm. */
export const TOOL_INFORMATION_URI = `https://www.npmjs.com/package/${PACKAGE_NAME}`;

interface SarifLocation {
  physicalLocation: {
    artifactLocation: { uri: string };
    region?: { startLine: number; startColumn?: number };
  };
}

/**
 * Renders a report's findings (cases that name a rule) as a SARIF 2.1.0 log.
 *
 * @example JSON.parse(renderSarif(scanReport(input, context))).runs[0].results[0].ruleId // → 'github-token'
 */
export function renderSarif(report: RedactedReport): string {
  const rules = report.rules ?? [];
  const cases = report.suites.flatMap((suite) => suite.cases);
  const findings = cases.filter((c) => c.rule !== undefined && c.status === 'failed');
  const problems = cases.filter((c) => c.rule === undefined && c.status === 'error');
  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: report.tool.name,
            version: report.tool.version,
            semanticVersion: report.tool.version,
            informationUri: TOOL_INFORMATION_URI,
            rules: rules.map(ruleDescriptor),
          },
        },
        invocations: [
          {
            executionSuccessful: problems.length === 0,
            toolExecutionNotifications: problems.map((c) => ({
              level: 'error',
              message: { text: c.message ?? c.name },
              ...(c.location ? { locations: [location(c)] } : {}),
            })),
          },
        ],
        columnKind: 'utf16CodeUnits',
        results: findings.map((c) => result(c, rules)),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

function ruleDescriptor(rule: ReportRule) {
  return {
    id: rule.id,
    shortDescription: { text: rule.description },
    help: { text: rule.help },
    defaultConfiguration: { level: rule.level },
    properties: { tags: rule.tags ?? ['security', 'secrets'], precision: rule.precision },
  };
}

function result(c: ReportCase, rules: readonly ReportRule[]) {
  const index = rules.findIndex((rule) => rule.id === c.rule);
  return {
    ruleId: c.rule,
    ...(index >= 0 ? { ruleIndex: index } : {}),
    level: c.severity ?? 'error',
    message: { text: c.message ?? c.name },
    locations: c.location ? [location(c)] : [],
  };
}

function location(c: ReportCase): SarifLocation {
  const at = c.location!;
  const line = at.line !== undefined && at.line > 0 ? at.line : undefined;
  return {
    physicalLocation: {
      artifactLocation: { uri: artifactUri(at.file) },
      ...(line === undefined
        ? {}
        : { region: { startLine: line, ...(at.column === undefined ? {} : { startColumn: at.column }) } }),
    },
  };
}

/**
 * A file path as a SARIF artifact URI: a relative path stays relative (code scanning resolves it against the
 * checkout), an absolute one becomes a `file:` URI; each segment is percent-encoded.
 *
 * @example artifactUri('fixtures/my session.jsonl') // → 'fixtures/my%20session.jsonl'
 * @example artifactUri('/tmp/a.jsonl') // → 'file:///tmp/a.jsonl'
 */
export function artifactUri(file: string): string {
  const path = file.replace(/\\/g, '/');
  const drive = /^[A-Za-z]:\//.exec(path)?.[0];
  const encode = (text: string) => text.split('/').map(encodeURIComponent).join('/');
  if (drive !== undefined) return `file:///${drive}${encode(path.slice(drive.length))}`;
  if (path.startsWith('/')) return `file://${encode(path)}`;
  return encode(path);
}
