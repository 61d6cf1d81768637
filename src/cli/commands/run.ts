import { resolve } from 'node:path';
import type { Command } from 'commander';
import { TapedeckError } from '../../errors.js';
import { refuseLink } from '../../no-follow.js';
import { recordHttpSession } from '../../proxy/bridge/session.js';
import { recordStdioSession } from '../../proxy/session.js';
import { finishStdout, openStdout, type ProxyStdout } from '../../proxy/streams.js';
import { redactArgv, summarize } from '../../redact/index.js';
import { type LoadedCassette, loadCassette } from '../../replay/load.js';
import type { MatchMode } from '../../replay/options.js';
import { compileIgnorePath } from '../../replay/paths.js';
import { cassetteRedaction } from '../../replay/redacted.js';
import {
  appendToCassette,
  EXPIRED_POLICIES,
  type ExpiredPolicy,
  parseDuration,
  parseExpiredPolicy,
  planRun,
  RUN_DEFAULTS,
  RUN_MODES,
  runSettings,
  updateRefusal,
} from '../../replay/run.js';
import { type ServeOutcome, serveStdio } from '../../replay/serve.js';
import { serveUpdate, type UpdateEvent, type UpdateOutcome } from '../../replay/update.js';
import { DeferredSink } from '../../sink/deferred.js';
import { FileSink } from '../../sink/file.js';
import { deriveLabel } from '../../sink/naming.js';
import type { TraceSink } from '../../sink/sink.js';
import { timestamp } from '../../trace/encode.js';
import { newMeta } from '../../trace/meta.js';
import { EXIT, usageError } from '../errors.js';
import { describeServeEvent, plural, renderReplaySummary } from '../format/replay-report.js';
import { addMatchFlags } from '../match-flags.js';
import { parsePositiveInt } from '../parse.js';
import { isDirectory, isFile } from '../paths.js';
import { holdSignals } from '../signals.js';
import {
  HEADER_EXAMPLE,
  labelFromUrl,
  type UpstreamFlags,
  type UpstreamSpec,
  upstreamOptions,
  upstreamSpec,
} from './record-bridge.js';
import { addRuleFlags, type RuleFlags, redactionFrom } from './redact.js';
import { nodeSpawn, serverCommand } from './verify.js';

interface RunFlags extends RuleFlags, UpstreamFlags {
  cassette?: string;
  mode?: string;
  match: string;
  ignore: string[];
  allowUnused?: boolean;
  maxAge?: string;
  expired: string;
  timeout?: string;
  server?: string;
}

interface RunSettings {
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
}

/** Where the live server is: a command to spawn, or a remote URL (record, passthrough and update need one). */
type LiveSide = { kind: 'command'; argv: string[] } | { kind: 'upstream'; spec: UpstreamSpec };

const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const say = (text: string) => process.stderr.write(`tapedeck: ${text}\n`);

/**
 * `tapedeck run --cassette F [--mode …] -- <server command…>`: put it where the server command goes. Records the
 * session into F, serves F instead of the server, or both (update), by mode; `TAPEDECK_MODE` / `TAPEDECK_CASSETTE`
 * override the flags.
 *
 * @example registerRun(program); // TAPEDECK_MODE=replay tapedeck run --cassette fixtures/s.jsonl -- node server.js
 */
export function registerRun(program: Command): void {
  const command = addMatchFlags(
    program
      .command('run')
      .description(
        'Record a session into a cassette, or serve it from one (VCR modes), in place of the server.',
      )
      .usage('--cassette <file> [options] (-- <command> [args...] | --upstream <url>)')
      .argument('[command...]', 'the server command, after --')
      .option('--cassette <file>', `the cassette file (or $${RUN_DEFAULTS.cassetteEnv})`)
      .option('--mode <mode>', `${RUN_MODES.join(' | ')} (default auto; $${RUN_DEFAULTS.modeEnv} wins)`),
  )
    .option('--allow-unused', 'replay and update: exit 0 even when recorded exchanges were never asked for')
    .option('--server <name>', 'replay and update: which server of a cassette that holds several (mcporter)')
    .option('--max-age <duration>', 'a cassette older than this (30d, 12h, 90m …) is expired')
    .option('--expired <policy>', `what an expired cassette gets: ${EXPIRED_POLICIES.join(' | ')}`, 'warn')
    .option('--timeout <ms>', 'update: how long a request forwarded to the live server may take', '30000')
    .option(
      '--upstream <url>',
      'the live server is this remote Streamable HTTP server (legacy SSE with --sse)',
    );
  addRuleFlags(upstreamOptions(command), { mode: false })
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  tapedeck run --cassette fixtures/everything.jsonl -- npx -y @modelcontextprotocol/server-everything\n' +
        '  TAPEDECK_MODE=replay npm test      # CI: serve every cassette, start no server\n' +
        '  tapedeck run --cassette f.jsonl --max-age 30d --expired record -- node server.js\n' +
        `  tapedeck run --cassette f.jsonl --upstream https://mcp.example.com/mcp ${HEADER_EXAMPLE}\n\n` +
        'Modes: auto replays the cassette when it exists and records it otherwise (an expired one again with\n' +
        '--expired record); record always records, overwriting the cassette once a message has crossed; replay\n' +
        'serves it without starting the server, and a request it does not hold gets a JSON-RPC error, a line on\n' +
        'stderr and exit 1; update replays what matches and forwards the rest to the live server (started on\n' +
        "the first miss, given the client's own initialize), adding those exchanges to the cassette at the end;\n" +
        'passthrough runs the server and records nothing.\n\n' +
        "Exit codes: replay and update as tapedeck replay (1 on a miss, or unused exchanges without\n--allow-unused); record and passthrough pass on the server's; 2 a usage error.",
    )
    .action(async (commandArgs: string[], flags: RunFlags, self: Command) => {
      const settings = settingsFrom(flags);
      const { mode, cassette } = runSettings({
        mode: flags.mode,
        cassette: flags.cassette,
        env: process.env,
      });
      const argv = serverCommand(self, commandArgs, 'run');
      if (argv.length > 0 && settings.upstream) {
        throw usageError(
          `run takes a server command after '--' or --upstream URL, not both (got '${argv[0]}' and ${settings.upstream.url})`,
        );
      }
      // Replay needs no server; every other mode may have to start one.
      if (argv.length === 0 && !settings.upstream && mode !== 'replay') {
        throw usageError(
          `run needs the server command after '--' (mode ${mode}) or --upstream URL, e.g. tapedeck run --cassette session.jsonl -- node server.js`,
        );
      }
      const live: LiveSide | undefined = settings.upstream
        ? { kind: 'upstream', spec: settings.upstream }
        : argv.length > 0
          ? { kind: 'command', argv }
          : undefined;
      process.exitCode = await runCommand(mode, resolve(cassette), live, settings);
    });
}

/** Every flag checked before a file is read or a server started. */
function settingsFrom(flags: RunFlags): RunSettings {
  if (flags.match !== 'keyed' && flags.match !== 'ordered') {
    throw usageError(`--match must be keyed or ordered; got '${flags.match}'`);
  }
  for (const path of flags.ignore) {
    try {
      compileIgnorePath(path);
    } catch (err) {
      throw usageError(`--ignore '${path}': ${(err as Error).message.replace(/^bad ignore path: /, '')}`);
    }
  }
  return {
    match: flags.match,
    ignore: flags.ignore,
    allowUnused: flags.allowUnused === true,
    maxAgeMs: flags.maxAge === undefined ? undefined : parseDuration('--max-age', flags.maxAge),
    expired: parseExpiredPolicy(flags.expired),
    timeoutMs: flags.timeout === undefined ? undefined : parsePositiveInt('--timeout', flags.timeout),
    rules: flags,
    upstream: upstreamSpec(flags),
    server: flags.server,
  };
}

async function runCommand(
  mode: ReturnType<typeof runSettings>['mode'],
  cassette: string,
  live: LiveSide | undefined,
  settings: RunSettings,
): Promise<number> {
  if (isDirectory(cassette))
    throw usageError(`--cassette ${cassette} is a folder; give the cassette's file path`);
  const exists = isFile(cassette);
  let loaded: LoadedCassette | undefined;
  if (exists && (mode === 'auto' || mode === 'replay' || mode === 'update')) {
    loaded = await loadCassette(cassette, {
      ...(settings.server === undefined ? {} : { server: settings.server }),
      onDiagnostic: (d) => say(`${d.severity}: ${d.message}`),
      // Update rewrites the cassette in place: never through a link (see src/no-follow.ts).
      links: mode === 'update' ? 'refuse' : 'follow',
    });
    for (const warning of loaded.cassette.warnings) say(`warning: ${cassette}: ${warning}`);
  }
  const plan = planRun({
    mode,
    cassette,
    exists,
    startedAt: loaded?.meta.startedAt,
    maxAgeMs: settings.maxAgeMs,
    expired: settings.expired,
  });
  if (plan.note) say(plan.note);
  if (plan.refuse) throw new TapedeckError('input', plan.refuse);
  const foreign =
    plan.mode === 'update' && loaded
      ? updateRefusal(loaded.path, loaded.format, 'run --mode update')
      : undefined;
  if (foreign) throw new TapedeckError('input', foreign);
  // Recording and updating write the cassette: a link in its place is refused before a server starts.
  if (plan.mode === 'record' || plan.mode === 'update') refuseLink(cassette);
  if (plan.mode !== 'replay' && live === undefined) {
    throw usageError(`run needs the server command after '--', or --upstream URL, to ${plan.mode}`);
  }
  // A signal that lands while the cassette, the trace's end line or the report is written must not kill us.
  const held = holdSignals();
  try {
    switch (plan.mode) {
      case 'record':
        return await recordInto(cassette, live!, settings.rules, exists);
      case 'passthrough':
        return await passthrough(live!);
      case 'replay':
        return await replay(loaded!, settings);
      case 'update':
        return await update(loaded!, live!, settings);
    }
  } finally {
    held.release();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// record / passthrough: the stdio recording proxy (or the stdio-to-HTTP bridge), writing the cassette or nothing

async function recordInto(
  cassette: string,
  live: LiveSide,
  rules: RuleFlags,
  existed: boolean,
): Promise<number> {
  const { config, compiled, redactor } = redactionFrom(rules);
  // The cassette is only (over)written once a message has crossed: a server that never starts keeps the old one.
  const sink = new DeferredSink(new FileSink({ path: cassette, redact: redactor }));
  const redaction = summarize(config);
  if (live.kind === 'upstream') {
    const { url, transport } = live.spec;
    sink.start(
      newMeta({ label: labelFromUrl(url), url, transport: transport === 'sse' ? 'sse' : 'http', redaction }),
    );
  } else {
    const shown = [...redactArgv(live.argv, compiled)];
    sink.start(newMeta({ label: deriveLabel(shown), command: shown, redaction, transport: 'stdio' }));
  }
  const code = await proxy(live, sink);
  if (!sink.started) {
    say(
      existed
        ? `nothing was recorded (no MCP message crossed): ${cassette} is as it was`
        : `nothing was recorded (no MCP message crossed): no cassette written to ${cassette}`,
    );
  }
  return code;
}

function passthrough(live: LiveSide): Promise<number> {
  const nothing: TraceSink = { start() {}, append() {}, close: async () => {} };
  return proxy(live, nothing);
}

async function proxy(live: LiveSide, sink: TraceSink): Promise<number> {
  if (live.kind === 'command') {
    return recordStdioSession(live.argv, sink, { maxMessageBytes: MAX_MESSAGE_BYTES, recordStderr: true });
  }
  const stop = new AbortController();
  // A signal ends the bridged session as stdin EOF does (the session is DELETEd, the end line written).
  const held = holdSignals(() => stop.abort());
  try {
    const { url, transport, headers } = live.spec;
    return await recordHttpSession(
      { url, transport, headers, signal: stop.signal, maxMessageBytes: MAX_MESSAGE_BYTES },
      sink,
    );
  } finally {
    held.release();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// replay / update

/** A redacted cassette holds markers where requests carry secrets: requests are redacted by the same rules first. */
function requestRedaction(loaded: LoadedCassette, settings: RunSettings) {
  return cassetteRedaction(loaded.meta, {
    patterns: settings.rules.redact,
    files: settings.rules.redactFile,
    defaults: settings.rules.redactDefaults,
    onWarning: (message) => say(`warning: ${message}`),
  });
}

async function replay(loaded: LoadedCassette, settings: RunSettings): Promise<number> {
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
  return report(outcome, undefined, loaded, settings);
}

async function update(loaded: LoadedCassette, live: LiveSide, settings: RunSettings): Promise<number> {
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
    onEvent: logEvent('update'),
  });
  const outcome = await untilDone(session, output);
  if (outcome.lines.length > 0) {
    await appendToCassette(loaded.path, outcome.lines, {
      redact: redactor,
      server: loaded.cassette.server,
      conn: `update-${timestamp().replace(/[-:.]/g, '')}`,
    });
    say(
      `added ${outcome.forwarded} new exchange${outcome.forwarded === 1 ? '' : 's'} to ${loaded.path} (${outcome.lines.length} lines)`,
    );
  }
  return report(outcome.replay, outcome, loaded, settings);
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
