import { ENTROPY_RULE } from '../redact/detect.js';
import { corruptCase } from './from-verify.js';
import type { Report, ReportCase, ReportContext, ReportLocation, ReportRule } from './model.js';
import { scanRule } from './scan-rules.js';

/** One thing scan found, as `tapedeck scan` reports it (its preview is masked: never the value). */
export interface ScanFindingInput {
  /** The file it is in, as the report names it. */
  file: string;
  /** The 1-based line (the item number in a JSON document format; 0 for what an import synthesized). */
  line: number;
  /** The 1-based column where the value starts in its line, when known. */
  column?: number | undefined;
  path: string;
  rule: string;
  preview: string;
}

/** What `tapedeck scan` found in one trace. */
export interface ScanReportInput {
  /** The trace, as the report names it. */
  trace: string;
  format: string;
  lines: number;
  unreadable: number;
  findings: readonly ScanFindingInput[];
}

/** Formats whose findings' numbers are lines of the file; the others (JSON documents) number items. */
const LINE_FORMATS = new Set(['tapedeck', 'mcp-tape', 'mcporter']);

/**
 * `tapedeck scan` as a report: one failed case per finding (a rule's an error, the heuristic's a warning), an
 * error case for corrupt lines that could not be checked, and one passing case for a clean trace. The rules the
 * findings name are listed with a description of each. A finding shows its masked preview, never the value.
 *
 * @example scanReport({ trace: 't.jsonl', format: 'tapedeck', lines: 9, unreadable: 0, findings }, context)
 */
export function scanReport(input: ScanReportInput, context: ReportContext): Report {
  const byLine = LINE_FORMATS.has(input.format);
  const cases: ReportCase[] = input.findings.map((finding, i) => findingCase(finding, i, byLine));
  if (input.unreadable > 0) cases.push(corruptCase(input.trace, input.unreadable));
  if (cases.length === 0) {
    cases.push({
      name: `no secrets found in ${input.lines} line${input.lines === 1 ? '' : 's'}`,
      group: 'scan',
      kind: 'clean',
      status: 'passed',
      location: { file: input.trace },
    });
  }
  const rules: ReportRule[] = [];
  for (const { rule } of input.findings)
    if (!rules.some((known) => known.id === rule)) rules.push(scanRule(rule));
  return {
    version: 1,
    tool: context.tool,
    command: 'scan',
    title: `tapedeck scan ${input.trace}`,
    startedAt: context.startedAt,
    durationMs: context.durationMs,
    suites: [{ name: `scan ${input.trace}`, file: input.trace, durationMs: context.durationMs, cases }],
    rules,
  };
}

function findingCase(finding: ScanFindingInput, i: number, byLine: boolean): ReportCase {
  const where =
    finding.line === 0 ? finding.path : `${byLine ? 'line' : 'item'} ${finding.line} ${finding.path}`;
  // Only a line of the file can be pointed at; an item of a JSON document is named in the message instead.
  const location: ReportLocation =
    byLine && finding.line > 0
      ? { file: finding.file, line: finding.line, column: finding.column }
      : { file: finding.file };
  const guess = finding.rule === ENTROPY_RULE;
  return {
    name: `finding ${i + 1}: ${where}`,
    group: finding.rule,
    kind: 'secret',
    status: 'failed',
    severity: guess ? 'warning' : 'error',
    message: `${guess ? 'possibly a secret (random-looking, no rule covers it)' : `a secret by rule "${finding.rule}"`} at ${where}: ${finding.preview}`,
    location,
    rule: finding.rule,
  };
}
