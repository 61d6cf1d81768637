import type { Violation } from '../gates/check/evaluate.js';
import type { AgentRun } from '../gates/check/runs.js';
import type { Report, ReportCase, ReportContext, ReportRule } from './model.js';

const rule = (id: string, description: string, help: string): ReportRule => ({
  id: `check/${id}`,
  description,
  help,
  level: 'error',
  precision: 'high',
  tags: ['mcp', 'agent'],
});

/** The rules a run can break, for SARIF's rule list. */
const RULES: readonly ReportRule[] = [
  rule(
    'expect-tool',
    'The run never called a tool it must call.',
    'Make the agent call it, or drop the expectation.',
  ),
  rule('forbid-tool', 'The run called a tool it must not call.', 'Keep the agent from calling it.'),
  rule('order', 'The run did not call the tools in the required order.', 'Check the agent’s plan.'),
  rule('max-calls', 'The run called a tool more often than allowed.', 'Look for a loop in the agent.'),
  rule('max-duration', 'The run took longer than allowed.', 'Look at the slowest calls with tapedeck stats.'),
  rule(
    'no-errors',
    'A tool call failed or a request was answered with an error.',
    'Look at the call with tapedeck show.',
  ),
];

/** One run as check judged it. */
export interface CheckedRun {
  run: AgentRun;
  violations: Violation[];
}

/**
 * `tapedeck check` as a report: one suite per run, a failed case per violated rule (pointing at the call to blame
 * when there is one), a passing case for a run that kept every rule.
 *
 * @example checkReport([{ run, violations }], context)
 */
export function checkReport(checked: readonly CheckedRun[], context: ReportContext): Report {
  const suites = checked.map(({ run, violations }) => {
    const cases: ReportCase[] = violations.map((v, i) => ({
      name: `${v.rule} ${i + 1}`,
      group: v.rule,
      kind: 'violation',
      status: 'failed',
      message: v.message,
      location: v.line === undefined ? { file: run.file } : { file: run.file, line: v.line },
      rule: `check/${v.rule}`,
    }));
    if (cases.length === 0)
      cases.push({
        name: `kept every rule in ${run.calls.length} tool call${run.calls.length === 1 ? '' : 's'}`,
        group: 'check',
        kind: 'pass',
        status: 'passed',
        durationMs: run.durationMs,
        location: { file: run.file },
      });
    return { name: `check ${run.file}`, file: run.file, durationMs: run.durationMs, cases };
  });
  return {
    version: 1,
    tool: context.tool,
    command: 'check',
    title: `tapedeck check ${checked.map((c) => c.run.file).join(' ')}`,
    startedAt: context.startedAt,
    durationMs: context.durationMs,
    suites,
    rules: RULES.filter((r) => suites.some((suite) => suite.cases.some((c) => c.rule === r.id))),
  };
}
