import type { LintResult } from '../gates/lint/lint-trace.js';
import { LINT_RULES } from '../gates/lint/rules.js';
import type { Report, ReportCase, ReportContext, ReportRule, Severity } from './model.js';

const SEVERITY: Readonly<Record<'info' | 'warn' | 'error', Severity>> = {
  info: 'note',
  warn: 'warning',
  error: 'error',
};

/**
 * `tapedeck lint` as a report: one suite per trace, a failed case per finding (pointing at its trace line, with the
 * rule's level), an error case per corrupt line, a passing case for a clean trace; the rules the findings name are
 * listed for SARIF. Every finding is a failed case with its own level (error, warning, note), so annotations and
 * code scanning show warnings and notes too; the exit code alone follows `--fail-on`.
 *
 * @example lintReport([await lintTrace('run.jsonl')], context)
 */
export function lintReport(results: readonly LintResult[], context: ReportContext): Report {
  const named = new Set<string>();
  const suites = results.map((result) => {
    const cases: ReportCase[] = result.findings.map((finding, i) => {
      named.add(finding.rule);
      return {
        name: `finding ${i + 1}: line ${finding.line} ${finding.rule}`,
        group: finding.rule,
        kind: 'lint',
        status: 'failed',
        severity: SEVERITY[finding.level],
        message:
          finding.session === undefined ? finding.message : `${finding.message} (session ${finding.session})`,
        location: finding.line > 0 ? { file: finding.file, line: finding.line } : { file: finding.file },
        rule: finding.rule,
      };
    });
    for (const d of result.diagnostics)
      cases.push({
        name: `unreadable line ${d.line ?? 0}`,
        group: 'trace',
        kind: 'corrupt',
        status: 'error',
        message: d.message,
        location: { file: d.file, ...(d.line === undefined ? {} : { line: d.line }) },
      });
    if (cases.length === 0)
      cases.push({
        name: `no findings in ${result.lines} line${result.lines === 1 ? '' : 's'}`,
        group: 'lint',
        kind: 'clean',
        status: 'passed',
        location: { file: result.trace },
      });
    return { name: `lint ${result.trace}`, file: result.trace, cases };
  });
  const rules: ReportRule[] = LINT_RULES.filter((rule) => named.has(rule.id)).map((rule) => ({
    id: rule.id,
    description: rule.description,
    help: rule.help,
    level: SEVERITY[rule.level],
    precision: 'high',
    tags: ['mcp', 'protocol'],
  }));
  return {
    version: 1,
    tool: context.tool,
    command: 'lint',
    title: `tapedeck lint ${results.map((r) => r.trace).join(' ')}`,
    startedAt: context.startedAt,
    durationMs: context.durationMs,
    suites,
    rules,
  };
}
