import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { parseDuration } from '../../base/units.js';
import { readRun } from '../../gates/check/check-trace.js';
import { evaluate, spread } from '../../gates/check/evaluate.js';
import { EMPTY_POLICY, type Policy, parsePolicy } from '../../gates/check/policy.js';
import { type CheckedRun, checkReport } from '../../report/from-check.js';
import { renderCheckText } from '../../report/text/check-report.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { addReporterFlag, parseReporters, reportClock, reportPath, writeReports } from '../flags/reporter.js';
import { addRuleFlags, type RuleFlags, redactedIo, redactionFrom } from '../flags/rules.js';
import { print, traceFiles, userPath } from '../io.js';
import { useColor } from '../terminal.js';

interface CheckOptions extends RuleFlags {
  expectTool: string[];
  forbidTool: string[];
  order?: string;
  maxCalls: string[];
  maxDuration?: string;
  expectNoErrors?: boolean;
  policy?: string;
  minPassRate?: string;
  json?: boolean;
  reporter: string[];
}

const many = (value: string, previous: string[]) => [...previous, value];

/**
 * `tapedeck check <trace…>`: asserts what an agent did in each recorded run. Exit 1 when a run breaks a rule (or,
 * with --min-pass-rate, when too few runs pass), 2 on a usage error.
 *
 * @example await run(['check', 'runs/1.jsonl', '--expect-tool', 'search', '--forbid-tool', 'delete_item']);
 */
export function registerCheck(program: Command, { io, action }: Cli): void {
  const command = program
    .command('check')
    .description(
      'Assert what an agent did in each recorded run: tools it must call, must not call, their order and counts.',
    )
    .argument('<trace...>', 'recorded runs (any format tapedeck reads)')
    .option('--expect-tool <name>', 'the run must call this tool (repeatable)', many, [] as string[])
    .option('--forbid-tool <name>', 'the run must not call this tool (repeatable)', many, [] as string[])
    .option('--order <a,b,…>', 'these tools must be called in this order (other calls may come between)')
    .option('--max-calls <name=n>', 'at most n calls of a tool (repeatable)', many, [] as string[])
    .option('--max-duration <duration>', 'each run takes at most this long, e.g. 30s')
    .option('--expect-no-errors', 'no tool call fails and no request is answered with an error')
    .option('--policy <file>', 'the same rules, and argument matchers, in a JSON or YAML file')
    .option(
      '--min-pass-rate <p>',
      'pass when at least this share of runs pass (0–1 or a percentage); default all',
    )
    .option('--json', 'print the runs, violations and tool spread as JSON ("version": 1)');
  addReporterFlag(addRuleFlags(command, { mode: false }), ['junit', 'github', 'json', 'sarif'])
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  tapedeck check runs/*.jsonl --expect-tool search --forbid-tool delete_item\n' +
        '  tapedeck check runs/*.jsonl --order search,summarize --max-calls search=3 --min-pass-rate 0.8\n' +
        '  tapedeck check runs/*.jsonl --policy agent-policy.yaml --reporter junit:check.xml\n\n' +
        'Exit codes: 0 every run passes (or --min-pass-rate is met), 1 otherwise, 2 a usage error.',
    )
    .action(
      action(async (inputs: string[], options: CheckOptions) => {
        const clock = reportClock();
        const reporters = parseReporters(options.reporter, {
          formats: ['junit', 'github', 'json', 'sarif'],
          stdoutTakenBy: options.json ? '--json' : undefined,
          cwd: io.cwd,
        });
        const policy = await policyOf(options, (path) => userPath(io, path));
        const minRate = rateOf(options.minPassRate);
        const out = redactedIo(io, redactionFrom(options, io));
        const checked: CheckedRun[] = [];
        for (const input of inputs) {
          const run = { ...(await readRun(userPath(io, input), traceFiles(io))), file: input };
          checked.push({ run, violations: evaluate(run, policy) });
        }
        const passed = checked.filter((c) => c.violations.length === 0).length;
        const rate = passed / checked.length;
        if (options.json) {
          const runs = checked.map(({ run, violations }) => ({
            file: run.file,
            durationMs: run.durationMs,
            calls: run.calls,
            violations,
          }));
          await print(
            out,
            `${JSON.stringify({ version: 1, passRate: rate, runs, tools: spread(checked.map((c) => c.run)) }, null, 2)}\n`,
          );
        } else if (!reporters.replacesStdout)
          await print(out, renderCheckText(checked, useColor(io.stdout, io.env)));
        if (reporters.reporters.length > 0) {
          const named = checked.map((c) => ({
            ...c,
            run: { ...c.run, file: reportPath(c.run.file, io.cwd) },
          }));
          await writeReports(reporters, checkReport(named, clock.context()), {
            ...out,
            stdoutTaken: options.json === true,
          });
        }
        return rate >= minRate ? EXIT.ok : EXIT.finding;
      }),
    );
}

/** The policy file's rules, then the flags' added to them. */
async function policyOf(options: CheckOptions, path: (p: string) => string): Promise<Policy> {
  let policy: Policy = { ...EMPTY_POLICY, expect: [], forbid: [], maxCalls: {} };
  if (options.policy !== undefined) {
    let text: string;
    try {
      text = await readFile(path(options.policy), 'utf8');
    } catch (err) {
      throw usageError(`--policy ${options.policy} cannot be read: ${(err as Error).message}`);
    }
    let value: unknown;
    try {
      value = parseYaml(text);
    } catch (err) {
      throw usageError(
        `--policy ${options.policy} is not JSON or YAML: ${(err as Error).message.split('\n')[0]}`,
      );
    }
    policy = parsePolicy(value, options.policy);
  }
  policy.expect.push(...options.expectTool.map((tool) => ({ tool })));
  policy.forbid.push(...options.forbidTool.map((tool) => ({ tool })));
  if (options.order !== undefined)
    policy.order = options.order
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
  for (const value of options.maxCalls) {
    const match = /^(.+)=(\d+)$/.exec(value);
    if (match === null) throw usageError(`--max-calls must be NAME=N, e.g. search=3; got '${value}'`);
    policy.maxCalls[match[1]!] = Number(match[2]);
  }
  if (options.maxDuration !== undefined) {
    const ms = parseDuration(options.maxDuration);
    if (ms === undefined)
      throw usageError(
        `--max-duration must be a duration such as 30s or 500ms; got '${options.maxDuration}'`,
      );
    policy.maxDurationMs = ms;
  }
  if (options.expectNoErrors) policy.expectNoErrors = true;
  return policy;
}

/** `--min-pass-rate` as a share: 0.8, 80 or 80%. */
function rateOf(value: string | undefined): number {
  if (value === undefined) return 1;
  const number = Number(value.replace(/%$/, ''));
  const rate = value.endsWith('%') || number > 1 ? number / 100 : number;
  if (!Number.isFinite(number) || rate < 0 || rate > 1)
    throw usageError(`--min-pass-rate must be a share between 0 and 1 or a percentage; got '${value}'`);
  return rate;
}
