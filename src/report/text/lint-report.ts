import { failsOn, type LintResult } from '../../gates/lint/lint-trace.js';
import { LINT_RULES } from '../../gates/lint/rules.js';
import { palette } from './color.js';

/**
 * What `tapedeck lint` prints: one line per finding, `file:line  level  rule  message`, then a count per trace.
 *
 * @example renderLintText([result], false) // → 'run.jsonl:5  error  jsonrpc/unknown-id  the server sent …'
 */
export function renderLintText(results: readonly LintResult[], color: boolean): string {
  const p = palette(color);
  const paint = { error: p.red, warn: p.yellow, info: p.blue } as const;
  const lines: string[] = [];
  for (const result of results) {
    for (const d of result.diagnostics) lines.push(`${p.red('unreadable')}  ${d.message}`);
    for (const f of result.findings) {
      const where = `${f.file === '' ? result.trace : f.file}${f.line > 0 ? `:${f.line}` : ''}`;
      const session = f.session === undefined ? '' : p.dim(` (session ${f.session})`);
      lines.push(`${where}  ${paint[f.level](f.level.padEnd(5))}  ${p.dim(f.rule)}  ${f.message}${session}`);
    }
    const counts = { error: 0, warn: 0, info: 0 };
    for (const f of result.findings) counts[f.level] += 1;
    const total = result.findings.length;
    lines.push(
      total === 0
        ? p.green(`no findings in ${result.lines} lines of ${result.trace}`)
        : `${total} finding${total === 1 ? '' : 's'} (${counts.error} error, ${counts.warn} warn, ${counts.info} info) in ${result.lines} lines of ${result.trace}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * `tapedeck lint --json`: every trace with its findings, and whether the run failed under `failOn`.
 *
 * @example JSON.parse(renderLintJson([result], 'error')).failed // → true
 */
export function renderLintJson(results: readonly LintResult[], failOn: 'warn' | 'error'): string {
  const failed = results.some((r) => r.diagnostics.length > 0 || r.findings.some((f) => failsOn(f, failOn)));
  const traces = results.map((r) => ({
    trace: r.trace,
    format: r.format,
    lines: r.lines,
    unreadable: r.diagnostics.map((d) => d.message),
    findings: r.findings,
  }));
  return `${JSON.stringify({ version: 1, failOn, failed, traces }, null, 2)}\n`;
}

/** `tapedeck lint --list-rules`: each rule, its default level and what it finds. */
export function renderLintRules(): string {
  const width = Math.max(...LINT_RULES.map((r) => r.id.length));
  return `${LINT_RULES.map((r) => `${r.id.padEnd(width)}  ${r.level.padEnd(5)}  ${r.description}`).join('\n')}\n`;
}
