/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance` 0.1.13) as a process and reads its
 * verdicts back. The machine-readable part is the `checks.json` the suite writes per scenario into `-o DIR`; the
 * `✓ name: N passed, M failed` summary lines are read too, and the two must agree, so a change in either format
 * fails loudly instead of silently turning every scenario into a pass or a fail.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_MODULES, type ProcessResult, runProcess } from '../../helpers/peers.js';

export const CONFORMANCE_BIN = join(NODE_MODULES, '@modelcontextprotocol/conformance/dist/index.js');

/** One check as the suite writes it into checks.json (only the fields the tests read). */
export interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
  /** What the check measured (the timing check: `tooEarly`, `slightlyLate`, `veryLate`, the delay). */
  details?: Record<string, unknown>;
}

/** A scenario's verdict: pass when no check failed (the suite's own rule), with the checks that decided it. */
export interface ScenarioOutcome {
  pass: boolean;
  checks: Check[];
  /** The failing checks, `id: message`, to make a failed comparison readable. */
  failures: string[];
}

export type Outcomes = Map<string, ScenarioOutcome>;

/** The names `conformance list --server` (or `--client`) prints. */
export async function listScenarios(kind: 'server' | 'client'): Promise<string[]> {
  const result = await runProcess(process.execPath, [CONFORMANCE_BIN, 'list', `--${kind}`], {
    timeoutMs: 15_000,
  });
  return [...result.stdout.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1]!);
}

/** Compact `name → pass|fail` for assertions whose failure output should be a readable table. */
export function verdicts(outcomes: Outcomes): Record<string, 'pass' | 'fail'> {
  return Object.fromEntries([...outcomes].map(([name, o]) => [name, o.pass ? 'pass' : 'fail']));
}

function readChecks(dir: string): Check[] {
  const parsed = JSON.parse(readFileSync(join(dir, 'checks.json'), 'utf8')) as unknown;
  if (!Array.isArray(parsed)) throw new Error(`${dir}/checks.json is not an array`);
  return parsed as Check[];
}

function outcomeOf(checks: Check[]): ScenarioOutcome {
  const failed = checks.filter((c) => c.status === 'FAILURE');
  return {
    pass: failed.length === 0,
    checks,
    failures: failed.map((c) => `${c.id}: ${c.errorMessage ?? ''}`),
  };
}

/** `checks.json` folders are `<prefix><scenario>-<ISO time with : and . as ->`. */
const RESULT_DIR = /^(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

function resultDirs(outDir: string, prefix: string): Map<string, string> {
  const dirs = new Map<string, string>();
  if (!existsSync(outDir)) return dirs;
  for (const name of readdirSync(outDir)) {
    const match = RESULT_DIR.exec(name);
    if (!match?.[1]?.startsWith(prefix)) continue;
    dirs.set(match[1].slice(prefix.length), join(outDir, name));
  }
  return dirs;
}

const SUMMARY_LINE = /^([✓✗]) (\S+): (\d+) passed, (\d+) failed/gm;

/**
 * `conformance server --url URL --suite all -o OUT`: every server scenario, one after the other, in one process.
 * Throws when the run does not account for every scenario in `expected`, or when its summary and its checks.json
 * disagree about one.
 */
export async function runServerSuite(
  url: string,
  outDir: string,
  expected: string[],
): Promise<{ outcomes: Outcomes; run: ProcessResult }> {
  const run = await runProcess(
    process.execPath,
    [CONFORMANCE_BIN, 'server', '--url', url, '--suite', 'all', '-o', outDir],
    { timeoutMs: 45_000 },
  );
  const explain = () =>
    `conformance server --url ${url}: exit ${run.code ?? run.signal}\n${run.stdout}\n${run.stderr}`;
  const summary = new Map(
    [...run.stdout.matchAll(SUMMARY_LINE)].map((m) => [m[2]!, { pass: m[1] === '✓', failed: Number(m[4]) }]),
  );
  const dirs = resultDirs(outDir, 'server-');
  const outcomes: Outcomes = new Map();
  for (const scenario of expected) {
    const line = summary.get(scenario);
    const dir = dirs.get(scenario);
    if (line === undefined) throw new Error(`no summary line for ${scenario}\n${explain()}`);
    // A scenario that threw gets a summary line but no checks.json; it failed.
    const outcome =
      dir === undefined
        ? { pass: false, checks: [], failures: ['the scenario did not run to its end'] }
        : outcomeOf(readChecks(dir));
    if (outcome.pass !== line.pass || (dir !== undefined && outcome.failures.length !== line.failed)) {
      throw new Error(`summary and checks.json disagree about ${scenario}\n${explain()}`);
    }
    outcomes.set(scenario, outcome);
  }
  return { outcomes, run };
}

/**
 * `conformance client --command CMD --scenario S -o OUT`: the suite starts its own server for the scenario and
 * runs CMD with that server's URL appended. The suite splits CMD at spaces (and hands it to a shell), so no part
 * of it may contain whitespace. A client scenario passes when no check failed or warned, the client exited 0 and
 * did not time out — the suite's rule; `pass` here is only the checks' part, the run's exit code says the rest.
 */
export async function runClientScenario(
  command: string[],
  scenario: string,
  outDir: string,
): Promise<{ outcome: ScenarioOutcome; run: ProcessResult }> {
  for (const part of command) {
    if (/\s/.test(part)) throw new Error(`the conformance suite splits its --command at spaces: '${part}'`);
  }
  const run = await runProcess(
    process.execPath,
    [
      CONFORMANCE_BIN,
      'client',
      '--command',
      command.join(' '),
      '--scenario',
      scenario,
      '--timeout',
      '20000',
      '-o',
      outDir,
    ],
    { timeoutMs: 30_000 },
  );
  const dir = resultDirs(outDir, '').get(scenario);
  if (dir === undefined) {
    throw new Error(
      `no checks.json for ${scenario}: exit ${run.code ?? run.signal}\n${run.stdout}\n${run.stderr}`,
    );
  }
  return { outcome: outcomeOf(readChecks(dir)), run };
}
