/**
 * What the commands that find things (`verify`, `diff`, `replay` / `run`, `scan`) report to CI, in one shape: a
 * run is suites of cases, each case passed, failed, an error or skipped, with where it points and why. Each
 * command maps its own report into this (from-verify.ts, from-diff.ts, from-replay.ts, from-scan.ts); every CI
 * format is rendered from it (ci/junit.ts, ci/github.ts, ci/json.ts, ci/sarif.ts), so a new format is one renderer and a new
 * command one mapper.
 */

/** The commands that report to CI. */
export type ReportCommand = 'verify' | 'diff' | 'replay' | 'run' | 'scan' | 'lint' | 'drift' | 'check';

/**
 * How a case ended: `failed` is a finding (an answer differs, a miss, a secret), `error` is a check that could not
 * be made (a timeout, a server that went away, a corrupt line), `skipped` is one left out on purpose.
 */
export type CaseStatus = 'passed' | 'failed' | 'error' | 'skipped';

/** How loud a failed case is: annotations and SARIF results take their level from it (`note`: lint's info). */
export type Severity = 'error' | 'warning' | 'note';

/** Where a case points: a file and, when known, a 1-based line and column in it. */
export interface ReportLocation {
  /** As the user named it, with forward slashes (annotations and SARIF resolve it against the checkout). */
  file: string;
  line?: number | undefined;
  column?: number | undefined;
}

/** One check: an exchange, an aligned request, a miss, an unused exchange, a finding. */
export interface ReportCase {
  /** Unique within its suite, readable alone: `#2 tools/call echo {"message":"hi"}`. */
  name: string;
  /** What groups it (JUnit's classname): the MCP method, or a scan's rule. */
  group: string;
  status: CaseStatus;
  /** What kind of case, for machines: `match`, `differ`, `miss`, `unused`, `changed`, `secret` … */
  kind: string;
  /** For a failed or error case (default `error`). */
  severity?: Severity | undefined;
  durationMs?: number | undefined;
  location?: ReportLocation | undefined;
  /** One line: what happened. Never a secret's value. */
  message?: string | undefined;
  /** Several lines: the structural diff, the closest recorded request. */
  details?: string | undefined;
  /** A scan finding's rule id (SARIF's ruleId). */
  rule?: string | undefined;
}

/** The cases of one subject: a cassette, a pair of traces, a scanned trace. */
export interface ReportSuite {
  name: string;
  /** The file the suite is about, when there is one. */
  file?: string | undefined;
  durationMs?: number | undefined;
  cases: ReportCase[];
}

/** A rule a case can name (scan's redaction rules and the heuristic), described for SARIF's rule list. */
export interface ReportRule {
  id: string;
  /** One sentence: what the rule finds. */
  description: string;
  /** What to do about a finding. */
  help: string;
  /** How loud its findings are. */
  level: Severity;
  /** How often a finding of the rule is real: a rule's match is, a heuristic's guess may not be. */
  precision: 'high' | 'low';
  /** SARIF tags (default: security and secrets, what scan's rules are about). */
  tags?: readonly string[] | undefined;
}

/** One command's run, as every CI format sees it. */
export interface Report {
  version: 1;
  tool: { name: string; version: string };
  command: ReportCommand;
  /** What ran, for people: `tapedeck verify fixtures/session.jsonl`. */
  title: string;
  /** ISO-8601 UTC. */
  startedAt: string;
  durationMs: number;
  suites: ReportSuite[];
  /** The rules the cases name, when they name any (scan). */
  rules?: ReportRule[] | undefined;
}

/** How many cases ended each way. */
export interface CaseCounts {
  tests: number;
  passed: number;
  failures: number;
  errors: number;
  skipped: number;
}

/**
 * Counts the cases of a suite, or of every suite in a report.
 *
 * @example countCases({ name: 's', cases: [{ name: 'a', group: 'g', kind: 'match', status: 'passed' }] })
 * // → { tests: 1, passed: 1, failures: 0, errors: 0, skipped: 0 }
 */
export function countCases(of: ReportSuite | Report): CaseCounts {
  const cases = 'suites' in of ? of.suites.flatMap((suite) => suite.cases) : of.cases;
  const counts: CaseCounts = { tests: cases.length, passed: 0, failures: 0, errors: 0, skipped: 0 };
  for (const c of cases) {
    if (c.status === 'passed') counts.passed += 1;
    else if (c.status === 'failed') counts.failures += 1;
    else if (c.status === 'error') counts.errors += 1;
    else counts.skipped += 1;
  }
  return counts;
}

/**
 * True when nothing failed and nothing went wrong: what the command's exit code 0 means.
 *
 * @example reportPassed(report) // → false when any case failed or is an error
 */
export function reportPassed(report: Report): boolean {
  const counts = countCases(report);
  return counts.failures === 0 && counts.errors === 0;
}

/** What every mapper takes besides the command's own report. */
export interface ReportContext {
  /** ISO-8601 UTC, when the command began. */
  startedAt: string;
  durationMs: number;
  tool: { name: string; version: string };
}
