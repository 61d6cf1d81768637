import type { Command } from 'commander';
import type { FaultPlan } from '../../faults/plan.js';
import { PROJECT_FILE_NAME, projectFor } from '../../live/project-file.js';
import { loadCassette } from '../../replay/cassette/load.js';
import { cassetteRedaction } from '../../replay/cassette/redacted.js';
import type { DiscoverAnswer } from '../../replay/engine/fallback.js';
import { replayFaultPlan } from '../../replay/engine/faults.js';
import {
  type MatchMode,
  parseTiming,
  REPLAY_DEFAULTS,
  type RepeatMode,
  type Timing,
} from '../../replay/options.js';
import type { HttpServeEvent, HttpServeOutcome } from '../../replay/serve/http/index.js';
import { type HttpFlavour, servedPath } from '../../replay/serve/http/options.js';
import { type ServeEvent, type ServeOutcome, serveStdio } from '../../replay/serve/stdio.js';
import { replayReport } from '../../report/from-replay.js';
import type { ReportContext } from '../../report/model.js';
import { describeServeEvent, plural, renderReplaySummary } from '../../report/text/replay-report.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import {
  addFaultFlags,
  announceFaults,
  FAULT_HELP,
  type FaultFlags,
  faultPlanOf,
  faultsNotApplied,
} from '../flags/faults.js';
import { addLastFlag, type LastFlag, traceArgument } from '../flags/last.js';
import { addMatchFlags, ignorePaths, MATCH_FLAG_NAMES, matchMode, repeatMode } from '../flags/match.js';
import {
  addReporterFlag,
  MCP_SESSION,
  parseReporters,
  type ReporterPlan,
  reportClock,
  reportPath,
  writeReports,
} from '../flags/reporter.js';
import { addRuleFlags, type RuleFlags, redactedIo, redactionFrom, redactionWhere } from '../flags/rules.js';
import { serveHttpOf } from '../flags/serve-http.js';
import { type CliIo, type RedactedIo, say, traceFiles, userPath } from '../io.js';
import { parseTimeLimitFlag } from '../parse.js';
import { type ListenAddress, parseListen } from '../record/http-flags.js';
import { holdSignals } from '../signals.js';
import { serveOnStdio } from '../stdio-session.js';

interface ReplayFlags extends RuleFlags, FaultFlags {
  match: string;
  ignore?: string[];
  timing: string;
  allowUnused?: boolean;
  repeat: string;
  server?: string;
  clientTimeout?: string;
  http?: string;
  sse?: boolean;
  allowHost?: string[];
  reporter: string[];
}

/** `--llm` and its `--listen` (see replay-llm.ts). */
interface LlmFlags {
  llm?: string;
  listen?: ListenAddress;
}

/** How replay's messages name its settings: this command's flags. */
const REPLAY_FLAG_NAMES = { ...MATCH_FLAG_NAMES, answerTimeout: '--client-timeout' };

/** Where the cassette is served: stdin/stdout, or an HTTP listener. */
type Front =
  | { kind: 'stdio' }
  | { kind: 'http'; host: string; port: number; flavour: HttpFlavour; allowHosts: string[] };

interface ReplaySettings {
  match: MatchMode;
  ignore: string[];
  timing: Timing;
  allowUnused: boolean;
  repeat: RepeatMode;
  server: string | undefined;
  answerTimeoutMs: number | undefined;
  rules: RuleFlags;
  front: Front;
  faults: FaultPlan | undefined;
  reporters: ReporterPlan;
}

/**
 * `tapedeck replay <cassette>`: a stdio MCP server that plays a recorded session back — or, with `--http`, a
 * Streamable HTTP (`--sse`: legacy SSE) one that runs until SIGINT / SIGTERM. Only the protocol goes to stdout;
 * the listening address, misses and the end-of-run report go to stderr. Exit 1 on a miss, an unanswered server→client request, a
 * corrupt cassette line, or unused exchanges (unless --allow-unused); 0 otherwise.
 *
 * @example registerReplay(program, cli); // tapedeck replay traces/session.jsonl --match ordered
 */
export function registerReplay(program: Command, { io, action }: Cli): void {
  const command = addMatchFlags(
    program
      .command('replay')
      .description(
        'Serve a recorded session (a cassette) as an MCP server, over stdio or HTTP: no real server runs.',
      )
      .argument('[cassette]', 'a trace: tapedeck/mcp-tape JSONL, mcporter NDJSON, shack trajectory JSON'),
  )
    .option(
      '--timing <timing>',
      'none (as fast as possible) | recorded | a speed factor such as 2 or 0.5',
      'none',
    )
    .option('--allow-unused', 'exit 0 even when recorded exchanges were never asked for')
    .option('--server <name>', 'which server of a cassette that holds several (mcporter)')
    .option(
      '--client-timeout <duration>',
      `how long to wait for the client's answer to a replayed sampling / elicitation / roots request, such as 5s, 1.5m or 500ms (a bare number is milliseconds) (default: ${REPLAY_DEFAULTS.answerTimeoutMs})`,
    )
    .option(
      '--http <host:port>',
      'serve Streamable HTTP on this address instead of stdio (port 0: a free one)',
    )
    .option('--sse', 'with --http: serve the legacy HTTP+SSE transport (GET /sse, POST /message) instead')
    .option(
      '--llm <trace>',
      "answer an agent's model calls from a trace record --llm wrote, without the provider",
    )
    .option(
      '--listen <host:port>',
      'with --llm: where the agent connects (default 127.0.0.1:7431; port 0 picks a free one)',
      parseListen,
    )
    .option(
      '--allow-host <name>',
      'with --http: accept this name in Host / Origin besides localhost (repeatable)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    );
  // A redacted cassette holds markers where requests carry secrets: requests are redacted by the same rules first.
  addReporterFlag(addRuleFlags(addFaultFlags(addLastFlag(command)), { mode: false }), [
    'junit',
    'github',
    'json',
  ])
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  tapedeck replay traces/session.jsonl\n' +
        '  tapedeck replay traces/session.jsonl --http 127.0.0.1:8080\n' +
        `  tapedeck replay session.jsonl   # with ${PROJECT_FILE_NAME}'s cassetteDir: found there\n` +
        '  tapedeck replay --last                 # the newest trace of the recording folder\n' +
        '  tapedeck replay --llm agent-llm.jsonl --listen 127.0.0.1:7431   # model calls, for an offline agent run\n' +
        '  tapedeck replay session.jsonl --fault error=-32603@tools/call:search#2 --fault latency=300~100\n' +
        '  npx @modelcontextprotocol/inspector-cli tapedeck replay traces/session.jsonl --method tools/list\n\n' +
        'Put `tapedeck replay <cassette>` where the server command goes. Requests are matched by method and\n' +
        'params (ids, progress tokens, client info and versions are ignored) and answered as recorded, progress\n' +
        'and server→client requests included. A cassette recorded with redaction gets requests redacted by the\n' +
        'same rules before matching (the --redact flags add the custom rules the recording had). On exit (stdin closed, SIGTERM or SIGINT) stderr says\n' +
        '`replayed N/M exchanges` and lists the unused ones.\n\n' +
        'With --http the cassette is served over Streamable HTTP until SIGINT or SIGTERM; stderr first says\n' +
        '`replaying <cassette> on http://HOST:PORT/<path>` (the path the cassette was recorded on, else /mcp; any\n' +
        'path works). Every live session plays from the one cassette: identical requests are served in recorded\n' +
        'order across sessions. Requests whose Host or Origin is not local get 403 unless --allow-host names it.\n\n' +
        `${FAULT_HELP}\nA MATCH that names nothing the cassette holds is a usage error.\n\n` +
        'A reporter (--reporter junit:FILE | github | json:FILE; files, as stdout is the session) writes a test\n' +
        'case per miss and per unused exchange when the session ends; github annotations go to stderr.\n\n' +
        'Exit codes: 0 every request matched and every exchange was used; 1 a miss, a server request the client\n' +
        'never answered, a corrupt cassette line, or unused exchanges (unless --allow-unused); 2 a usage error.',
    )
    .action(
      action(async (path: string | undefined, flags: ReplayFlags & LastFlag & LlmFlags) => {
        if (flags.llm !== undefined) {
          if (path !== undefined)
            throw usageError('replay --llm takes the LLM trace as its value, not a cassette too');
          const { replayLlm } = await import('../replay-llm.js');
          const { llm } = flags;
          return await replayLlm({ ...flags, llm }, io);
        }
        if (flags.listen !== undefined)
          throw usageError('--listen applies with --llm; an MCP cassette listens with --http');
        const settings = { ...settingsFrom(flags, io), faults: await faultPlanOf(flags, io) };
        const named = traceArgument(path, flags, 'replay', io);
        // Over stdio the session's requests come on standard input, which a cassette read from it has used up.
        if (named === '-' && flags.http === undefined)
          throw usageError(
            "replay - reads the cassette from standard input, where a stdio session's requests come too: serve it over HTTP (replay - --http 127.0.0.1:0) or save it to a file",
          );
        // A relative cassette is looked up in the project file's cassetteDir, when there is one ('-' is stdin).
        const cassette =
          named === '-' || path === undefined ? named : ((await projectFor(named, io.cwd)).cassette ?? named);
        return await replay(cassette, settings, io);
      }),
    );
}

/** Every flag checked before the cassette is read or stdin touched. */
function settingsFrom(flags: ReplayFlags, io: CliIo): Omit<ReplaySettings, 'faults'> {
  const match = matchMode(flags.match);
  const repeat = repeatMode(flags.repeat);
  const ignore = flags.ignore ?? [];
  ignorePaths(ignore);
  let timing: Timing;
  try {
    timing = parseTiming(flags.timing);
  } catch {
    throw usageError(
      `--timing must be none, recorded, or a speed factor above 0 such as 2 or 0.5x; got '${flags.timing}'`,
    );
  }
  return {
    front: frontFrom(flags),
    match,
    ignore,
    timing,
    allowUnused: flags.allowUnused === true,
    repeat,
    server: flags.server,
    answerTimeoutMs:
      flags.clientTimeout === undefined
        ? undefined
        : parseTimeLimitFlag('--client-timeout', flags.clientTimeout),
    rules: flags,
    reporters: parseReporters(flags.reporter, {
      formats: ['junit', 'github', 'json'],
      stdoutTakenBy: MCP_SESSION,
      cwd: io.cwd,
    }),
  };
}

function frontFrom(flags: ReplayFlags): Front {
  if (flags.http === undefined && flags.sse)
    throw usageError('--sse needs --http HOST:PORT (legacy SSE is an HTTP transport)');
  const http = serveHttpOf(flags);
  if (http === undefined) return { kind: 'stdio' };
  return { kind: 'http', ...http, flavour: flags.sse ? 'sse' : 'streamable' };
}

async function replay(path: string, settings: ReplaySettings, io: CliIo): Promise<number> {
  const clock = reportClock();
  // What replay says of the session (misses, notices, reports) is redacted as a recording of it would be.
  const out = redactedIo(io, redactionFrom(settings.rules, io));
  const note = (text: string) => say(out, text);
  const loaded = await loadCassette(userPath(io, path), {
    server: settings.server,
    // `-`: the cassette is read from the run's stdin, to its end, before a stdio session would read it for requests.
    files: traceFiles(io),
    onDiagnostic: (d) => note(`${d.severity}: ${d.message}`),
  });
  for (const warning of loaded.cassette.warnings) note(`warning: ${path}: ${warning}`);
  // A MATCH naming nothing the cassette holds could never fire: refused before anything is served.
  replayFaultPlan(loaded.cassette, { faults: settings.faults }, REPLAY_DEFAULTS.scheduler);
  announceFaults(settings.faults, out);
  const faults = { faults: settings.faults };
  const redact = await cassetteRedaction(loaded.meta, {
    patterns: settings.rules.redact,
    files: settings.rules.redactFile,
    defaults: settings.rules.redactDefaults,
    where: redactionWhere(io),
    onWarning: (message) => note(`warning: ${message}`),
  });

  const discover: { kind: DiscoverAnswer['kind'] | undefined } = { kind: undefined };
  // What both fronts serve the same way.
  const served = {
    match: settings.match,
    ignore: settings.ignore,
    timing: settings.timing,
    repeat: settings.repeat,
    answerTimeoutMs: settings.answerTimeoutMs,
    settingNames: REPLAY_FLAG_NAMES,
    redact,
    shown: out.redaction,
    ...faults,
  };
  if (settings.front.kind === 'http') {
    const front = settings.front;
    // Loaded only for --http: a stdio replay (a mock server a test suite starts per test) should not pay for it.
    const { serveHttp } = await import('../../replay/serve/http/server.js');
    const server = await serveHttp(loaded.cassette, {
      ...served,
      host: front.host,
      port: front.port,
      transport: front.flavour,
      allowHosts: front.allowHosts,
      path: servedPath(loaded.meta, front.flavour),
      onEvent: httpEventLogger(note, discover, out),
    });
    const held = holdSignals(() => server.stop());
    try {
      note(`replaying ${path} on ${server.url}`);
      const outcome: HttpServeOutcome = await server.done;
      const code = report({ ...outcome, probe: false }, settings, loaded.errors, discover.kind, note);
      await writeReplayReports(path, outcome.report, settings, loaded.errors, clock.context(), out);
      return code;
    } finally {
      held.release();
    }
  }
  const outcome: ServeOutcome = await serveOnStdio(io, (input, output) =>
    serveStdio(loaded.cassette, { ...served, input, output, onEvent: eventLogger(note, discover, out) }),
  );
  const code = report(outcome, settings, loaded.errors, discover.kind, note);
  // A 2026-era client's probe process gets only server/discover: its session, elsewhere, reports.
  if (!(outcome.probe && outcome.report.misses.length === 0))
    await writeReplayReports(path, outcome.report, settings, loaded.errors, clock.context(), out);
  return code;
}

/** The session's misses and unused exchanges, to each --reporter (stdout is the session: stderr or files). */
async function writeReplayReports(
  path: string,
  outcome: ServeOutcome['report'],
  settings: ReplaySettings,
  corruptLines: number,
  context: ReportContext,
  io: RedactedIo,
): Promise<void> {
  if (settings.reporters.reporters.length === 0) return;
  const input = {
    command: 'replay' as const,
    cassette: reportPath(path, io.cwd),
    report: outcome,
    allowUnused: settings.allowUnused,
    corruptLines,
    faultsNotApplied: faultsNotApplied(settings.faults, outcome.faults),
  };
  await writeReports(settings.reporters, replayReport(input, context), { ...io, stdoutTaken: true });
}

/** One stderr line per thing worth knowing while the session runs; hits stay quiet. */
function eventLogger(
  note: (text: string) => void,
  discover: { kind: DiscoverAnswer['kind'] | undefined },
  out: RedactedIo,
): (event: ServeEvent) => void {
  return (event) => {
    // Said once, with the report: a probe process gets nothing but discover.
    if (event.kind === 'fallback' && event.fallback.kind === 'discover')
      discover.kind = event.fallback.answer.kind;
    const line = describeServeEvent(event, out.redaction);
    if (line !== undefined) note(line);
  };
}

/** The stdio lines, plus what only HTTP has: requests turned away and messages no stream could carry. */
function httpEventLogger(
  note: (text: string) => void,
  discover: { kind: DiscoverAnswer['kind'] | undefined },
  out: RedactedIo,
): (event: HttpServeEvent) => void {
  const serveEvent = eventLogger(note, discover, out);
  return (event) => {
    if (event.kind === 'rejected')
      note(`refused ${event.method} ${event.path}: ${event.status} ${event.reason}`);
    else if (event.kind === 'dropped') note(`dropped a server message (${event.reason})`);
    else if (event.kind !== 'session' && event.kind !== 'http-answer') serveEvent(event);
  };
}

/** The end-of-run report; resolves to the exit code. */
function report(
  outcome: Pick<ServeOutcome, 'report' | 'probe'>,
  settings: ReplaySettings,
  corruptLines: number,
  discover: DiscoverAnswer['kind'] | undefined,
  note: (text: string) => void,
): number {
  const { report } = outcome;
  const misses = report.misses.length;
  const timeouts = report.timeouts.length;
  const how =
    discover === 'legacy'
      ? 'not recorded; answered -32601 Method not found, as the initialize-era server it was recorded from would'
      : discover === 'derived'
        ? 'not recorded; answered from the recorded session'
        : 'as recorded';
  if (outcome.probe && misses === 0) {
    // A 2026-era client's probe process: it asks server/discover and is then stopped; the session is elsewhere.
    note(`answered a server/discover probe (${how})`);
    return EXIT.ok;
  }
  if (discover !== undefined) note(`note: server/discover ${how}`);
  const extras = [
    misses > 0 ? `${misses} miss${misses === 1 ? '' : 'es'}` : '',
    timeouts > 0 ? `${timeouts} unanswered server request${plural(timeouts)}` : '',
    report.repeats > 0 ? `${report.repeats} served again` : '',
    report.faults.length > 0 ? `${report.faults.length} fault${plural(report.faults.length)} injected` : '',
  ].filter((part) => part !== '');
  const summary = renderReplaySummary({ report, extras, allowUnused: settings.allowUnused, corruptLines });
  for (const line of summary.lines) note(line);
  return misses > 0 || timeouts > 0 || summary.failed ? EXIT.finding : EXIT.ok;
}
