import type { Command } from 'commander';
import { parseFailOn, parseLintSection, parseRuleSetting } from '../../gates/lint/config.js';
import { failsOn, type LintResult, lintTrace } from '../../gates/lint/lint-trace.js';
import type { LintLevel } from '../../gates/lint/rules.js';
import { findProjectFile } from '../../live/project-file.js';
import { lintReport } from '../../report/from-lint.js';
import { renderLintJson, renderLintRules, renderLintText } from '../../report/text/lint-report.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { addReporterFlag, parseReporters, reportClock, reportPath, writeReports } from '../flags/reporter.js';
import { addRuleFlags, type RuleFlags, redactedIo, redactionFrom } from '../flags/rules.js';
import { print, traceFiles, userPath } from '../io.js';
import { useColor } from '../terminal.js';

interface LintOptions extends RuleFlags {
  rule: string[];
  failOn?: string;
  json?: boolean;
  listRules?: boolean;
  reporter: string[];
}

/**
 * `tapedeck lint <trace…>`: checks recorded traffic against the MCP specification for the version each session
 * negotiated. Exit 0 clean (nothing at or above `--fail-on`), 1 with findings, 2 usage.
 *
 * @example await run(['lint', 'recordings/run.jsonl', '--rule', 'stdio/non-json=off']);
 */
export function registerLint(program: Command, { io, action }: Cli): void {
  const command = program
    .command('lint')
    .description(
      'Check recorded traffic against the MCP specification for the version each session negotiated.',
    )
    .argument('[trace...]', 'trace files (any format tapedeck reads)')
    .option(
      '--rule <id=level>',
      'set a rule to off | info | warn | error (repeatable); beats the lint section of tapedeck.config.json',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--fail-on <level>', 'the lowest level that fails the run: warn | error (default error)')
    .option('--json', 'print the findings as JSON ("version": 1)')
    .option('--list-rules', 'list the rules with their default levels and exit');
  addReporterFlag(addRuleFlags(command, { mode: false }), ['junit', 'github', 'json', 'sarif'])
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  tapedeck lint recordings/run.jsonl\n' +
        '  tapedeck lint recordings/*.jsonl --rule stdio/non-json=off --fail-on warn\n' +
        '  tapedeck lint run.jsonl --reporter sarif:lint.sarif --reporter github\n\n' +
        'Schemas: the official SDKs (v1 @modelcontextprotocol/sdk for 2024-11-05 … 2025-11-25, v2\n' +
        '@modelcontextprotocol/core for 2026-07-28); tool schemas with Ajv (JSON Schema 2020-12, no remote $ref).\n' +
        'Exit codes: 0 clean, 1 findings at or above --fail-on (or unreadable lines), 2 a usage error.',
    )
    .action(
      action(async (inputs: string[], options: LintOptions) => {
        if (options.listRules) {
          await print(io, renderLintRules());
          return EXIT.ok;
        }
        if (inputs.length === 0)
          throw usageError('lint needs at least one trace file, e.g. tapedeck lint run.jsonl');
        const clock = reportClock();
        const reporters = parseReporters(options.reporter, {
          formats: ['junit', 'github', 'json', 'sarif'],
          stdoutTakenBy: options.json ? '--json' : undefined,
          cwd: io.cwd,
        });
        const { levels, failOn } = await settings(options, io.cwd);
        const out = redactedIo(io, redactionFrom(options, io));
        const files = traceFiles(io);
        const results: LintResult[] = [];
        for (const input of inputs) {
          const path = userPath(io, input);
          const result = await lintTrace(path, { levels, files });
          // Findings name the trace as the user wrote it (other segments of a rotated trace keep their paths).
          const findings = result.findings.map((f) => (f.file === path ? { ...f, file: input } : f));
          results.push({ ...result, trace: input, findings });
        }
        if (options.json) await print(out, renderLintJson(results, failOn));
        else if (!reporters.replacesStdout)
          await print(out, renderLintText(results, useColor(io.stdout, io.env)));
        if (reporters.reporters.length > 0) {
          const named = results.map((r) => ({
            ...r,
            trace: reportPath(r.trace, io.cwd),
            findings: r.findings.map((f) => ({
              ...f,
              file: reportPath(f.file === '' ? r.trace : f.file, io.cwd),
            })),
          }));
          await writeReports(reporters, lintReport(named, clock.context()), {
            ...out,
            stdoutTaken: options.json === true,
          });
        }
        const failed = results.some(
          (r) => r.diagnostics.length > 0 || r.findings.some((f) => failsOn(f, failOn)),
        );
        return failed ? EXIT.finding : EXIT.ok;
      }),
    );
}

/** Rule levels and the fail level: the project file's lint section, then the flags. */
async function settings(
  options: LintOptions,
  cwd: string,
): Promise<{ levels: Record<string, LintLevel>; failOn: 'warn' | 'error' }> {
  const project = await findProjectFile([cwd]);
  const section = project?.lint === undefined ? undefined : parseLintSection(project.lint, project.path);
  const levels: Record<string, LintLevel> = { ...section?.rules };
  for (const value of options.rule) {
    const [id, level] = parseRuleSetting(value);
    levels[id] = level;
  }
  const failOn = options.failOn === undefined ? (section?.failOn ?? 'error') : parseFailOn(options.failOn);
  return { levels, failOn };
}
