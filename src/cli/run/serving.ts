import type { FaultPlan } from '../../faults/plan.js';
import { appendToCassette, type ExpiredPolicy, type ModeSource, modeSetting } from '../../live/run.js';
import { serveUpdate, type UpdateEvent, type UpdateOutcome } from '../../live/update.js';
import type { LoadedCassette } from '../../replay/cassette/load.js';
import { cassetteRedaction } from '../../replay/cassette/redacted.js';
import type { MatchMode, RepeatMode } from '../../replay/options.js';
import { type ServeOutcome, serveStdio } from '../../replay/serve/stdio.js';
import { replayReport } from '../../report/from-replay.js';
import { describeServeEvent, plural, renderReplaySummary } from '../../report/text/replay-report.js';
import { withCassetteLock } from '../../sink/cassette-lock.js';
import { timestamp } from '../../trace/encode.js';
import { EXIT } from '../errors.js';
import { faultsNotApplied } from '../flags/faults.js';
import { MATCH_FLAG_NAMES } from '../flags/match.js';
import { type ReporterPlan, reportClock, reportPath, writeReports } from '../flags/reporter.js';
import { type RuleFlags, redactionFrom, redactionWhere } from '../flags/rules.js';
import type { UpstreamSpec } from '../flags/upstream.js';
import { type CliIo, type RedactedIo, say } from '../io.js';
import { nodeSpawn } from '../node-spawn.js';
import type { ListenAddress } from '../record/http-flags.js';
import { serveOnStdio } from '../stdio-session.js';
import type { LiveSide } from './recording.js';

/**
 * `tapedeck run` in replay and update modes: the cassette served on stdio, and in update mode the live server
 * started for what the cassette does not hold, the new exchanges added to the cassette under its lock.
 */

export interface RunSettings {
  /** `--llm`, `--llm-cassette`, `--listen`: the agent's model calls beside the session (see llm.ts). */
  llm?: URL | undefined;
  llmCassette?: string | undefined;
  listen?: ListenAddress | undefined;
  match: MatchMode;
  repeat: RepeatMode;
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
  /** --fault, --faults, --seed: injected in replay mode. */
  faults: FaultPlan | undefined;
  /** --reporter: CI reports of the session's misses and unused exchanges. */
  reporters: ReporterPlan;
  /** Where the mode is set: a miss names the setting that records it. */
  modeSource: ModeSource;
}

/** A redacted cassette holds markers where requests carry secrets: requests are redacted by the same rules first. */
function requestRedaction(loaded: LoadedCassette, settings: RunSettings, io: CliIo) {
  return cassetteRedaction(loaded.meta, {
    patterns: settings.rules.redact,
    files: settings.rules.redactFile,
    defaults: settings.rules.redactDefaults,
    where: redactionWhere(io),
    onWarning: (message) => say(io, `warning: ${message}`),
  });
}

/**
 * Serves the cassette on stdio; resolves to the exit code (1 on a miss, or unused exchanges without --allow-unused).
 *
 * @example const code = await replay(await loadCassette('s.jsonl'), settings, io);
 */
export async function replay(loaded: LoadedCassette, settings: RunSettings, io: RedactedIo): Promise<number> {
  const clock = reportClock();
  const redact = await requestRedaction(loaded, settings, io);
  const outcome = await serveOnStdio(io, (input, output) =>
    serveStdio(loaded.cassette, {
      input,
      output,
      match: settings.match,
      repeat: settings.repeat,
      ignore: settings.ignore,
      settingNames: MATCH_FLAG_NAMES,
      redact,
      shown: io.redaction,
      onEvent: logEvent('replay', settings.modeSource, io),
      faults: settings.faults,
    }),
  );
  const code = report(outcome, undefined, loaded, settings, io);
  if (!(outcome.probe && outcome.report.misses.length === 0))
    await writeRunReports(loaded.path, settings, io, clock, {
      report: outcome.report,
      corruptLines: loaded.errors,
    });
  return code;
}

/**
 * Serves what matches and forwards the rest to the live server, then adds the new exchanges to the cassette.
 *
 * @example const code = await update(loaded, { kind: 'command', argv: ['node', 's.js'] }, settings, io);
 */
export async function update(
  loaded: LoadedCassette,
  live: LiveSide,
  settings: RunSettings,
  io: RedactedIo,
): Promise<number> {
  const clock = reportClock();
  // What the live server could not answer either, one line each, for the reports.
  const failures: string[] = [];
  const log = logEvent('update', settings.modeSource, io);
  // A bad redaction config fails here, before anything is served.
  const { redactor } = redactionFrom(settings.rules, io);
  const redact = await requestRedaction(loaded, settings, io);
  const [command, ...args] = live.kind === 'command' ? live.argv : [];
  const outcome = await serveOnStdio(io, (input, output) =>
    serveUpdate(loaded.cassette, {
      input,
      output,
      ...(live.kind === 'upstream' ? { upstream: live.spec } : { spawn: nodeSpawn, command, args }),
      match: settings.match,
      repeat: settings.repeat,
      ignore: settings.ignore,
      settingNames: MATCH_FLAG_NAMES,
      requestTimeoutMs: settings.timeoutMs,
      redact,
      shown: io.redaction,
      onEvent: (event) => {
        if (event.kind === 'forward-failed')
          failures.push(`${event.method} is not in the cassette and ${event.message}`);
        log(event);
      },
    }),
  );
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
      io,
      `added ${outcome.forwarded} new exchange${outcome.forwarded === 1 ? '' : 's'} to ${loaded.path} (${outcome.lines.length} lines)`,
    );
  }
  const code = report(outcome.replay, outcome, loaded, settings, io);
  if (!(outcome.replay.probe && outcome.replay.report.misses.length === 0)) {
    const seen = { report: outcome.replay.report, corruptLines: loaded.errors };
    await writeRunReports(loaded.path, settings, io, clock, {
      ...seen,
      forwarded: { count: outcome.forwarded, failures },
    });
  }
  return code;
}

/** What a run saw, for its reports: replay's report, or (record, passthrough) why nothing was replayed. */
export interface RunSeen {
  report?: ServeOutcome['report'];
  corruptLines?: number;
  forwarded?: { count: number; failures: string[] };
  notReplayed?: string;
}

/**
 * The run's report to each --reporter (stdout is the session: stderr or files).
 *
 * @example await writeRunReports('s.jsonl', settings, io, clock, { notReplayed: 'recording s.jsonl: no cassette there yet' });
 */
export async function writeRunReports(
  cassette: string,
  settings: Pick<RunSettings, 'reporters' | 'allowUnused'> & Partial<Pick<RunSettings, 'faults'>>,
  io: RedactedIo,
  clock: ReturnType<typeof reportClock>,
  seen: RunSeen,
): Promise<void> {
  if (settings.reporters.reporters.length === 0) return;
  const input = {
    command: 'run' as const,
    cassette: reportPath(cassette, io.cwd),
    report: seen.report ?? { used: 0, total: 0, unused: [], misses: [], timeouts: [] },
    allowUnused: settings.allowUnused,
    corruptLines: seen.corruptLines ?? 0,
    forwarded: seen.forwarded,
    notReplayed: seen.notReplayed,
    faultsNotApplied: seen.report ? faultsNotApplied(settings.faults, seen.report.faults) : [],
  };
  await writeReports(settings.reporters, replayReport(input, clock.context()), { ...io, stdoutTaken: true });
}

/** What records a missed request, named where the mode is set (the flag, or what wins over it). */
function missHint(source: ModeSource): string {
  if (source.kind === 'flag') return 'record it with --mode update, or re-record with --mode record';
  return `record it in mode update, or re-record in mode record: set ${modeSetting(source)}`;
}

/** One stderr line per thing worth knowing while the session runs; hits stay quiet. */
function logEvent(
  mode: 'replay' | 'update',
  source: ModeSource,
  io: RedactedIo,
): (event: UpdateEvent) => void {
  return (event) => {
    switch (event.kind) {
      case 'miss':
        // In update mode a miss is forwarded; 'forwarded' / 'forward-failed' say what became of it.
        if (mode === 'replay') say(io, `miss: ${event.miss.message} (${missHint(source)})`);
        return;
      case 'forwarded':
        say(
          io,
          `not in the cassette, forwarded to the live server: ${event.method} (id ${JSON.stringify(event.id)})`,
        );
        return;
      case 'forward-failed':
        say(io, `error: ${event.method} is not in the cassette and ${event.message}`);
        return;
      case 'live-started':
        say(
          io,
          event.pid === undefined
            ? 'connected to the live server for requests the cassette does not hold'
            : `started the live server (pid ${event.pid}) for requests the cassette does not hold`,
        );
        return;
      default: {
        const line = describeServeEvent(event, io.redaction);
        if (line !== undefined) say(io, line);
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
  io: CliIo,
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
    report.faults.length > 0 ? `${report.faults.length} fault${plural(report.faults.length)} injected` : '',
  ].filter((part) => part !== '');
  const summary = renderReplaySummary({
    report,
    extras,
    allowUnused: settings.allowUnused,
    corruptLines: loaded.errors,
  });
  for (const line of summary.lines) say(io, line);
  return misses > 0 || timeouts > 0 || summary.failed ? EXIT.finding : EXIT.ok;
}
