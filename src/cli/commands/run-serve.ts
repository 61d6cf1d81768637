import { appendToCassette, type ExpiredPolicy } from '../../live/run.js';
import { serveUpdate, type UpdateEvent, type UpdateOutcome } from '../../live/update.js';
import { finishStdout, openStdout, type ProxyStdout } from '../../proxy/streams.js';
import type { LoadedCassette } from '../../replay/cassette/load.js';
import { cassetteRedaction } from '../../replay/cassette/redacted.js';
import type { MatchMode } from '../../replay/options.js';
import { type ServeOutcome, serveStdio } from '../../replay/serve/stdio.js';
import { replayReport } from '../../report/from-replay.js';
import { withCassetteLock } from '../../sink/cassette-lock.js';
import { timestamp } from '../../trace/encode.js';
import { EXIT } from '../errors.js';
import { type ReporterPlan, reportClock, reportPath, writeReports } from '../flags/reporter.js';
import { describeServeEvent, plural, renderReplaySummary } from '../format/replay-report.js';
import { holdSignals } from '../signals.js';
import type { UpstreamSpec } from './record-bridge.js';
import { type RuleFlags, redactionFrom } from './redact.js';
import type { LiveSide } from './run-record.js';
import { nodeSpawn } from './verify.js';

/**
 * `tapedeck run` in replay and update modes: the cassette served on stdio, and in update mode the live server
 * started for what the cassette does not hold, the new exchanges added to the cassette under its lock.
 */

export interface RunSettings {
  match: MatchMode;
  ignore: string[];
  allowUnused: boolean;
  maxAgeMs: number | undefined;
  expired: ExpiredPolicy;
  timeoutMs: number | undefined;
  /** --redact, --redact-file, --no-redact-defaults: what record and update redact with, and replay matches with. */
  rules: RuleFlags;
  /** A remote server in place of the server command. */
  upstream: UpstreamSpec | undefined;
  /** Which server of a multi-server cassette replay and update serve. */
  server: string | undefined;
  /** --reporter: CI reports of the session's misses and unused exchanges. */
  reporters: ReporterPlan;
}

const say = (text: string) => process.stderr.write(`tapedeck: ${text}\n`);

/** A redacted cassette holds markers where requests carry secrets: requests are redacted by the same rules first. */
function requestRedaction(loaded: LoadedCassette, settings: RunSettings) {
  return cassetteRedaction(loaded.meta, {
    patterns: settings.rules.redact,
    files: settings.rules.redactFile,
    defaults: settings.rules.redactDefaults,
    onWarning: (message) => say(`warning: ${message}`),
  });
}

/**
 * Serves the cassette on stdio; resolves to the exit code (1 on a miss, or unused exchanges without --allow-unused).
 *
 * @example process.exitCode = await replay(await loadCassette('s.jsonl'), settings);
 */
export async function replay(loaded: LoadedCassette, settings: RunSettings): Promise<number> {
  const clock = reportClock();
  const redact = await requestRedaction(loaded, settings);
  const output = openStdout();
  const server = serveStdio(loaded.cassette, {
    input: process.stdin,
    output: output.stream,
    match: settings.match,
    ignore: settings.ignore,
    redact,
    onEvent: logEvent('replay'),
  });
  const outcome = await untilDone(server, output);
  const code = report(outcome, undefined, loaded, settings);
  if (!(outcome.probe && outcome.report.misses.length === 0))
    await writeRunReports(
      loaded.path,
      settings,
      { report: outcome.report, corruptLines: loaded.errors },
      clock,
    );
  return code;
}

/**
 * Serves what matches and forwards the rest to the live server, then adds the new exchanges to the cassette.
 *
 * @example process.exitCode = await update(loaded, { kind: 'command', argv: ['node', 's.js'] }, settings);
 */
export async function update(loaded: LoadedCassette, live: LiveSide, settings: RunSettings): Promise<number> {
  const clock = reportClock();
  // What the live server could not answer either, one line each, for the reports.
  const failures: string[] = [];
  const log = logEvent('update');
  // A bad redaction config fails here, before anything is served.
  const { redactor } = redactionFrom(settings.rules);
  const redact = await requestRedaction(loaded, settings);
  const output = openStdout();
  const [command, ...args] = live.kind === 'command' ? live.argv : [];
  const session = serveUpdate(loaded.cassette, {
    input: process.stdin,
    output: output.stream,
    ...(live.kind === 'upstream' ? { upstream: live.spec } : { spawn: nodeSpawn, command, args }),
    match: settings.match,
    ignore: settings.ignore,
    requestTimeoutMs: settings.timeoutMs,
    redact,
    onEvent: (event) => {
      if (event.kind === 'forward-failed')
        failures.push(`${event.method} is not in the cassette and ${event.message}`);
      log(event);
    },
  });
  const outcome = await untilDone(session, output);
  if (outcome.lines.length > 0) {
    // Under the lock, the lines are added to what the file holds now: another run may have written it meanwhile.
    await withCassetteLock(loaded.path, () =>
      appendToCassette(loaded.path, outcome.lines, {
        redact: redactor,
        server: loaded.cassette.server,
        conn: `update-${timestamp().replace(/[-:.]/g, '')}`,
      }),
    );
    say(
      `added ${outcome.forwarded} new exchange${outcome.forwarded === 1 ? '' : 's'} to ${loaded.path} (${outcome.lines.length} lines)`,
    );
  }
  const code = report(outcome.replay, outcome, loaded, settings);
  if (!(outcome.replay.probe && outcome.replay.report.misses.length === 0)) {
    const forwarded = { count: outcome.forwarded, failures };
    await writeRunReports(
      loaded.path,
      settings,
      { report: outcome.replay.report, corruptLines: loaded.errors, forwarded },
      clock,
    );
  }
  return code;
}

/**
 * The run's report to each --reporter: what replay saw, or (record, passthrough) that nothing was replayed.
 *
 * @example await writeRunReports('s.jsonl', settings, { notReplayed: 'recording s.jsonl: no cassette there yet' }, clock);
 */
export async function writeRunReports(
  cassette: string,
  settings: Pick<RunSettings, 'reporters' | 'allowUnused'>,
  seen: {
    report?: ServeOutcome['report'];
    corruptLines?: number;
    forwarded?: { count: number; failures: string[] };
    notReplayed?: string;
  },
  clock: ReturnType<typeof reportClock>,
): Promise<void> {
  if (settings.reporters.reporters.length === 0) return;
  const cwd = process.cwd();
  const input = {
    command: 'run' as const,
    cassette: reportPath(cassette, cwd),
    report: seen.report ?? { used: 0, total: 0, unused: [], misses: [], timeouts: [] },
    allowUnused: settings.allowUnused,
    corruptLines: seen.corruptLines ?? 0,
    forwarded: seen.forwarded,
    notReplayed: seen.notReplayed,
  };
  await writeReports(settings.reporters, replayReport(input, clock.context()), {
    stdout: process.stdout,
    stderr: process.stderr,
    cwd,
    stdoutTaken: true,
  });
}

async function untilDone<T>(session: { done: Promise<T>; stop(): void }, output: ProxyStdout): Promise<T> {
  const held = holdSignals(() => session.stop());
  let outcome: T;
  try {
    outcome = await session.done;
  } finally {
    held.release();
  }
  // A client that stopped reading must not keep us alive.
  await Promise.race([finishStdout(output), new Promise((done) => setTimeout(done, 2000).unref())]);
  return outcome;
}

/** One stderr line per thing worth knowing while the session runs; hits stay quiet. */
function logEvent(mode: 'replay' | 'update'): (event: UpdateEvent) => void {
  return (event) => {
    switch (event.kind) {
      case 'miss':
        // In update mode a miss is forwarded; 'forwarded' / 'forward-failed' say what became of it.
        if (mode === 'replay')
          say(`miss: ${event.miss.message} (record it with --mode update, or re-record with --mode record)`);
        return;
      case 'forwarded':
        say(
          `not in the cassette, forwarded to the live server: ${event.method} (id ${JSON.stringify(event.id)})`,
        );
        return;
      case 'forward-failed':
        say(`error: ${event.method} is not in the cassette and ${event.message}`);
        return;
      case 'live-started':
        say(
          event.pid === undefined
            ? 'connected to the live server for requests the cassette does not hold'
            : `started the live server (pid ${event.pid}) for requests the cassette does not hold`,
        );
        return;
      default: {
        const line = describeServeEvent(event);
        if (line !== undefined) say(line);
      }
    }
  };
}

/** The end-of-run report; resolves to the exit code. */
function report(
  outcome: ServeOutcome,
  update: UpdateOutcome | undefined,
  loaded: LoadedCassette,
  settings: RunSettings,
): number {
  const { report } = outcome;
  if (outcome.probe && report.misses.length === 0) return EXIT.ok;
  // In update mode the misses were forwarded; only those the live server did not answer count.
  const misses = update ? update.failed : report.misses.length;
  const timeouts = report.timeouts.length;
  const extras = [
    update && update.forwarded > 0 ? `${update.forwarded} forwarded to the live server` : '',
    misses > 0 && !update ? `${misses} miss${misses === 1 ? '' : 'es'}` : '',
    misses > 0 && update ? `${misses} not answered by the live server either` : '',
    timeouts > 0 ? `${timeouts} unanswered server request${plural(timeouts)}` : '',
  ].filter((part) => part !== '');
  const summary = renderReplaySummary({
    report,
    extras,
    allowUnused: settings.allowUnused,
    corruptLines: loaded.errors,
  });
  for (const line of summary.lines) say(line);
  return misses > 0 || timeouts > 0 || summary.failed ? EXIT.finding : EXIT.ok;
}
