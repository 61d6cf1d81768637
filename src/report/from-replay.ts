import { describeFault, type FaultRecord } from '../faults/records.js';
import type { MatchReport } from '../replay/cassette/matcher.js';
import type { Miss } from '../replay/cassette/miss.js';
import { describeRequest } from '../trace/describe.js';
import { diffText } from './diff-text.js';
import { corruptCase } from './from-verify.js';
import type { Report, ReportCase, ReportContext } from './model.js';

/** What `replay` and `run` (replay and update modes) know at the end of a session. */
export interface ReplayReportInput {
  command: 'replay' | 'run';
  /** The cassette, as the report names it. */
  cassette: string;
  report: Pick<MatchReport, 'used' | 'total' | 'unused' | 'misses'> & {
    /** One line per server→client request the client left unanswered. */
    timeouts: readonly string[];
    /** What --fault / --faults injected, in order. */
    faults?: readonly FaultRecord[] | undefined;
  };
  /** The fault rules that spoiled no answer, as written, with how many requests they matched. */
  faultsNotApplied?: readonly { rule: string; matched: number }[] | undefined;
  /** --allow-unused: exchanges never asked for are skipped, not failed. */
  allowUnused: boolean;
  corruptLines: number;
  /**
   * `run --mode update`: misses went to the live server, so they are not failures; those it did not answer are
   * (`failures`, one line each).
   */
  forwarded?: { count: number; failures: readonly string[] } | undefined;
  /** `run` recorded or passed through instead of replaying: why (one skipped case says so). */
  notReplayed?: string | undefined;
}

/**
 * A replayed session as a report: one case per miss (with the closest recorded request and where it differs), per
 * unused exchange, per server request the client left unanswered, and one for corrupt cassette lines. A session
 * where every request matched says so in one passing case, so a clean run is not an empty report.
 *
 * @example replayReport({ command: 'replay', cassette: 's.jsonl', report, allowUnused: false, corruptLines: 0 }, context)
 */
export function replayReport(input: ReplayReportInput, context: ReportContext): Report {
  const { report, cassette, forwarded } = input;
  const cases: ReportCase[] = [];
  const used = `${report.used}/${report.total} recorded exchanges used`;
  if (input.notReplayed !== undefined) {
    cases.push({
      name: 'not replayed',
      group: input.command,
      kind: 'not-replayed',
      status: 'skipped',
      message: input.notReplayed,
      location: { file: cassette },
    });
  } else if (forwarded) {
    cases.push({
      name: `requests the cassette does not hold (${forwarded.count} forwarded to the live server)`,
      group: 'update',
      kind: 'forwarded',
      status: 'passed',
      location: { file: cassette },
    });
    forwarded.failures.forEach((failure, i) => {
      cases.push({
        name: `forward ${i + 1}`,
        group: 'update',
        kind: 'forward-failed',
        status: 'failed',
        message: failure,
        location: { file: cassette },
      });
    });
  } else if (report.misses.length === 0) {
    cases.push({
      name: 'every request matched a recorded exchange',
      group: input.command,
      kind: 'matched',
      status: 'passed',
      message: used,
      location: { file: cassette },
    });
  } else cases.push(...report.misses.map((miss, i) => missCase(miss, i, cassette)));
  for (const unused of report.unused) {
    cases.push({
      name: `unused #${unused.ordinal} ${unused.summary}`,
      group: unused.method,
      kind: 'unused',
      status: input.allowUnused ? 'skipped' : 'failed',
      message: input.allowUnused
        ? 'recorded, never asked for; accepted (--allow-unused)'
        : `recorded, never asked for (${used}); pass --allow-unused to accept it`,
      location: { file: cassette, line: unused.lineNo },
    });
  }
  report.timeouts.forEach((timeout, i) => {
    cases.push({
      name: `server request ${i + 1} the client left unanswered`,
      group: input.command,
      kind: 'unanswered',
      status: 'failed',
      message: timeout,
      location: { file: cassette },
    });
  });
  if (input.corruptLines > 0) cases.push(corruptCase(cassette, input.corruptLines));
  cases.push(...faultCases(report.faults ?? [], input.faultsNotApplied ?? [], cassette));
  return {
    version: 1,
    tool: context.tool,
    command: input.command,
    title: `tapedeck ${input.command} ${cassette}`,
    startedAt: context.startedAt,
    durationMs: context.durationMs,
    suites: [{ name: `${input.command} ${cassette}`, file: cassette, durationMs: context.durationMs, cases }],
  };
}

function missCase(miss: Miss, i: number, cassette: string): ReportCase {
  const details: string[] = [];
  if (miss.closest && miss.diff) {
    const line = miss.closest.lineNo === undefined ? '' : ` (line ${miss.closest.lineNo})`;
    details.push(`closest recorded request: #${miss.closest.ordinal}${line}`);
    const entries = miss.diff.entries.map((e) => ({ path: e.path, left: e.recorded, right: e.live }));
    details.push(diffText(entries, miss.diff.total, ['recorded', 'live']));
  }
  // The closest recorded request is where to look (or the one expected next, under ordered matching).
  const near = miss.closest ?? miss.expected;
  return {
    name: `miss ${i + 1}: ${describeRequest(miss.shown)}`,
    group: miss.request.method,
    kind: `miss-${miss.reason}`,
    status: 'failed',
    message: miss.message,
    details: details.length > 0 ? details.join('\n') : undefined,
    location: { file: cassette, line: near?.lineNo },
  };
}

/**
 * What was injected, so a CI run under faults says which answers the client got spoiled: one passing case per
 * injected fault (the check is the client's, not the report's), and a skipped one per rule that applied to nothing.
 */
function faultCases(
  records: readonly FaultRecord[],
  notApplied: NonNullable<ReplayReportInput['faultsNotApplied']>,
  cassette: string,
): ReportCase[] {
  const injected = records.map(
    (record, i): ReportCase => ({
      name: `fault ${i + 1}: ${describeFault(record)}`,
      group: 'faults',
      kind: 'fault',
      status: 'passed',
      message: `injected by '${record.fault}'${record.seed === undefined ? '' : ` (seed ${record.seed})`}`,
      location: { file: cassette },
    }),
  );
  const idle = notApplied.map(
    ({ rule, matched }): ReportCase => ({
      name: `fault '${rule}' spoiled no answer`,
      group: 'faults',
      kind: 'fault-unused',
      status: 'skipped',
      message:
        matched === 0
          ? 'the client never asked what it names'
          : `it matched ${matched} request${matched === 1 ? '' : 's'}, none of them the one it spoils`,
      location: { file: cassette },
    }),
  );
  return [...injected, ...idle];
}
