import type { Command } from 'commander';
import { TapedeckError } from '../../base/errors.js';
import { realScheduler } from '../../base/scheduler.js';
import { ANSWER_TIMEOUT_MS } from '../../base/timeouts.js';
import { PROJECT_FILE_NAME, projectFor } from '../../live/project-file.js';
import {
  EXPIRED_POLICIES,
  type ModeSource,
  parseExpiredPolicy,
  planRun,
  RUN_DEFAULTS,
  RUN_MODES,
  type RunMode,
  runCassette,
  runMode,
  updateRefusal,
} from '../../live/run.js';
import { type LoadedCassette, loadCassette } from '../../replay/cassette/load.js';
import { replayFaultPlan } from '../../replay/engine/faults.js';
import type { Cli } from '../context.js';
import { usageError } from '../errors.js';
import { addFaultFlags, announceFaults, FAULT_HELP, type FaultFlags, faultPlanOf } from '../flags/faults.js';
import { addMatchFlags, ignorePaths, matchMode, repeatMode } from '../flags/match.js';
import { addReporterFlag, MCP_SESSION, parseReporters, reportClock } from '../flags/reporter.js';
import { addRuleFlags, type RuleFlags, redactedIo, redactionFrom } from '../flags/rules.js';
import { addServerCommandArgument, SERVER_COMMAND_HELP } from '../flags/server-command.js';
import { HEADER_EXAMPLE, type UpstreamFlags, upstreamOptions, upstreamSpec } from '../flags/upstream.js';
import { type CliIo, say } from '../io.js';
import { parseDurationFlag, parseTimeLimitFlag } from '../parse.js';
import { isDirectory, isFile, refuseLinkedOutput } from '../paths.js';
import { type ListenAddress, parseListen, parseUpstream } from '../record/http-flags.js';
import { type LiveSide, passthrough, recordInto } from '../run/recording.js';
import { type RunSettings, replay, update, writeRunReports } from '../run/serving.js';
import { holdSignals } from '../signals.js';

interface RunFlags extends RuleFlags, UpstreamFlags, FaultFlags {
  cassette?: string;
  mode?: string;
  match: string;
  repeat: string;
  ignore: string[];
  allowUnused?: boolean;
  maxAge?: string;
  expired: string;
  timeout?: string;
  server?: string;
  reporter: string[];
  llm?: URL;
  llmCassette?: string;
  listen?: ListenAddress;
}

/**
 * `tapedeck run --cassette F [--mode …] -- <server command…>`: put it where the server command goes. Records the
 * session into F, serves F instead of the server, or both (update), by mode; `TAPEDECK_MODE` / `TAPEDECK_CASSETTE`
 * override the flags.
 *
 * @example registerRun(program, cli); // TAPEDECK_MODE=replay tapedeck run --cassette fixtures/s.jsonl -- node server.js
 */
export function registerRun(program: Command, { io, action }: Cli): void {
  const command = addMatchFlags(
    addServerCommandArgument(
      program
        .command('run')
        .description(
          'Record a session into a cassette, or serve it from one (VCR modes), in place of the server.',
        )
        .usage('--cassette <file> [options] ([--] <command> [args...] | --upstream <url>)'),
    )
      .option(
        '--cassette <file>',
        `the cassette file (or $${RUN_DEFAULTS.cassetteEnv}); relative to ${PROJECT_FILE_NAME}'s cassetteDir when set`,
      )
      .option(
        '--mode <mode>',
        `${RUN_MODES.join(' | ')} (default auto; $${RUN_DEFAULTS.modeEnv}, then ${PROJECT_FILE_NAME}'s "mode", win)`,
      ),
  )
    .option('--allow-unused', 'replay and update: exit 0 even when recorded exchanges were never asked for')
    .option(
      '--llm <url>',
      "also record or replay the agent's model calls, by the same mode: the provider's base URL (see record --llm)",
      (value: string) => parseUpstream(value, '--llm'),
    )
    .option(
      '--llm-cassette <file>',
      'with --llm: where the model calls are kept (default: the cassette’s name with .llm.jsonl)',
    )
    .option(
      '--listen <host:port>',
      'with --llm: where the agent reaches its model (default 127.0.0.1:7431)',
      parseListen,
    )
    .option('--server <name>', 'replay and update: which server of a cassette that holds several (mcporter)')
    .option('--max-age <duration>', 'a cassette older than this (30d, 12h, 90m …) is expired')
    .option('--expired <policy>', `what an expired cassette gets: ${EXPIRED_POLICIES.join(' | ')}`, 'warn')
    .option(
      '--timeout <duration>',
      'update: how long a request forwarded to the live server may take, such as 5s, 1.5m or 500ms (a bare number is milliseconds)',
      String(ANSWER_TIMEOUT_MS),
    )
    .option(
      '--upstream <url>',
      'the live server is this remote Streamable HTTP server (legacy SSE with --sse)',
    );
  addReporterFlag(addRuleFlags(addFaultFlags(upstreamOptions(command)), { mode: false }), [
    'junit',
    'github',
    'json',
  ])
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  tapedeck run --cassette fixtures/everything.jsonl -- npx -y @modelcontextprotocol/server-everything\n' +
        '  TAPEDECK_MODE=replay npm test      # CI: serve every cassette, start no server\n' +
        `  echo '{"mode":"replay"}' > ${PROJECT_FILE_NAME}   # the same for clients that pass no environment on\n` +
        '  tapedeck run --cassette f.jsonl --max-age 30d --expired record -- node server.js\n' +
        `  tapedeck run --cassette f.jsonl --upstream https://mcp.example.com/mcp ${HEADER_EXAMPLE}\n\n` +
        'Modes: auto replays the cassette when it exists and records it otherwise (an expired one again with\n' +
        '--expired record); record always records, overwriting the cassette once a message has crossed; replay\n' +
        'serves it without starting the server, and a request it does not hold gets a JSON-RPC error, a line on\n' +
        'stderr and exit 1; update replays what matches and forwards the rest to the live server (started on\n' +
        "the first miss, given the client's own initialize), adding those exchanges to the cassette at the end;\n" +
        'passthrough runs the server and records nothing. The mode comes from $TAPEDECK_MODE, else the nearest\n' +
        `${PROJECT_FILE_NAME} (above the working folder, or the cassette's), else --mode; stderr says which.\n\n` +
        `${SERVER_COMMAND_HELP}\n\n` +
        `${FAULT_HELP}\nFaults apply in replay mode.\n\n` +
        'A reporter (--reporter junit:FILE | github | json:FILE) writes a test case per miss and per unused\n' +
        "exchange, as tapedeck replay's do; a run that recorded says it replayed nothing.\n\n" +
        "Exit codes: replay and update as tapedeck replay (1 on a miss, or unused exchanges without\n--allow-unused); record and passthrough pass on the server's; 2 a usage error.",
    )
    .action(
      action(async (argv: string[], flags: RunFlags) => {
        const settings = { ...settingsFrom(flags, io), faults: await faultPlanOf(flags, io) };
        const named = runCassette({ cassette: flags.cassette, env: io.env });
        const { project, cassette } = await projectFor(named, io.cwd);
        const { mode, from, source } = runMode({ mode: flags.mode, env: io.env, project });
        if (argv.length > 0 && settings.upstream) {
          throw usageError(
            `run takes a server command or --upstream URL, not both (got '${argv[0]}' and ${settings.upstream.url})`,
          );
        }
        // Replay needs no server; every other mode may have to start one.
        if (argv.length === 0 && !settings.upstream && mode !== 'replay') {
          throw usageError(
            `run needs a server command (mode ${mode}${source.kind === 'flag' ? '' : `, from ${from}`}) or --upstream URL, e.g. tapedeck run --cassette session.jsonl node server.js`,
          );
        }
        const live: LiveSide | undefined = settings.upstream
          ? { kind: 'upstream', spec: settings.upstream }
          : argv.length > 0
            ? { kind: 'command', argv }
            : undefined;
        return await runCommand(
          { mode, from, source },
          cassette!,
          live,
          { ...settings, modeSource: source },
          io,
        );
      }),
    );
}

/** Every flag checked before a file is read or a server started. */
function settingsFrom(flags: RunFlags, io: CliIo): Omit<RunSettings, 'faults' | 'modeSource'> {
  const match = matchMode(flags.match);
  ignorePaths(flags.ignore);
  return {
    match,
    repeat: repeatMode(flags.repeat),
    ignore: flags.ignore,
    allowUnused: flags.allowUnused === true,
    maxAgeMs: flags.maxAge === undefined ? undefined : parseDurationFlag('--max-age', flags.maxAge),
    expired: parseExpiredPolicy(flags.expired),
    timeoutMs: flags.timeout === undefined ? undefined : parseTimeLimitFlag('--timeout', flags.timeout),
    rules: flags,
    llm: flags.llm,
    llmCassette: flags.llmCassette,
    listen: flags.listen,
    upstream: upstreamSpec(flags, io.env),
    server: flags.server,
    reporters: parseReporters(flags.reporter, {
      formats: ['junit', 'github', 'json'],
      stdoutTakenBy: MCP_SESSION,
      cwd: io.cwd,
    }),
  };
}

async function runCommand(
  { mode, from, source }: { mode: RunMode; from: string; source: ModeSource },
  cassette: string,
  live: LiveSide | undefined,
  settings: RunSettings,
  io: CliIo,
): Promise<number> {
  if (isDirectory(cassette))
    throw usageError(`--cassette ${cassette} is a folder; give the cassette's file path`);
  // Recording and updating write the cassette: a link in its place is refused before anything is read or started.
  const refuseLinked = () =>
    refuseLinkedOutput(
      io.env.TAPEDECK_CASSETTE?.trim() ? 'TAPEDECK_CASSETTE' : '--cassette',
      cassette,
      cassette,
    );
  if (mode === 'record' || mode === 'update') refuseLinked();
  // What the run says of the session is redacted as its recording is; a bad setup fails before anything starts.
  const out = redactedIo(io, redactionFrom(settings.rules, io));
  const exists = isFile(cassette);
  let loaded: LoadedCassette | undefined;
  if (exists && (mode === 'auto' || mode === 'replay' || mode === 'update')) {
    loaded = await loadCassette(cassette, {
      ...(settings.server === undefined ? {} : { server: settings.server }),
      onDiagnostic: (d) => say(out, `${d.severity}: ${d.message}`),
      // Update rewrites the cassette in place: never through a link (see src/base/no-follow.ts).
      links: mode === 'update' ? 'refuse' : 'follow',
    });
    for (const warning of loaded.cassette.warnings) say(out, `warning: ${cassette}: ${warning}`);
  }
  const plan = planRun({
    mode,
    cassette,
    exists,
    modeFrom: from,
    modeSource: source,
    exchanges: loaded?.cassette.exchanges.length,
    startedAt: loaded?.meta.startedAt,
    maxAgeMs: settings.maxAgeMs,
    expired: settings.expired,
  });
  if (plan.refuse) throw new TapedeckError('input', plan.refuse);
  const foreign =
    plan.mode === 'update' && loaded
      ? updateRefusal(loaded.path, loaded.format, 'run --mode update')
      : undefined;
  if (foreign) throw new TapedeckError('input', foreign);
  // Auto records a cassette that is not there yet, where a dangling link may stand.
  if (plan.mode === 'record' || plan.mode === 'update') refuseLinked();
  if (plan.mode !== 'replay' && live === undefined) {
    throw usageError(`run needs a server command, or --upstream URL, to ${plan.mode}`);
  }
  // What runs and why, always: a run that records where a replay was meant must never go unnoticed.
  say(out, plan.why);
  if (plan.note) say(out, plan.note);
  if (settings.faults && plan.mode === 'replay') {
    replayFaultPlan(loaded!.cassette, { faults: settings.faults }, realScheduler);
    announceFaults(settings.faults, out);
  } else if (settings.faults)
    say(
      out,
      `warning: faults are injected in replay mode only; this run is in ${plan.mode} mode: none will be`,
    );
  // A signal that lands while the cassette, the trace's end line or the report is written must not kill us.
  const held = holdSignals();
  const llm = settings.llm === undefined ? undefined : await startLlmSide(settings.llm, plan.mode);
  try {
    let code: number;
    try {
      code = await play(plan.mode);
    } catch (err) {
      await llm?.close();
      throw err;
    }
    return Math.max(code, (await llm?.close()) ?? 0);
  } finally {
    held.release();
  }

  /** The model calls of `--llm`, recorded or replayed by the run's mode (loaded only then). */
  async function startLlmSide(upstream: URL, mode: typeof plan.mode) {
    const { llmCassetteBeside, startRunLlm } = await import('../run/llm.js');
    const file = settings.llmCassette ?? llmCassetteBeside(cassette);
    const options = {
      upstream,
      file,
      listen: settings.listen,
      allowUnused: settings.allowUnused,
      rules: settings.rules,
    };
    return await startRunLlm(mode, options, out, io);
  }

  /** The MCP side of the run, by mode. */
  async function play(mode: typeof plan.mode): Promise<number> {
    switch (mode) {
      case 'record':
      case 'passthrough': {
        const clock = reportClock();
        const code =
          plan.mode === 'record'
            ? await recordInto(cassette, live!, settings.rules, exists, out)
            : await passthrough(live!);
        await writeRunReports(cassette, settings, out, clock, { notReplayed: plan.why });
        return code;
      }
      case 'replay':
        return await replay(loaded!, settings, out);
      case 'update':
        return await update(loaded!, live!, settings, out);
    }
  }
}
