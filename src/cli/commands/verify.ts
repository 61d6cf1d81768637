import type { Command } from 'commander';
import { TapedeckError } from '../../base/errors.js';
import { ANSWER_TIMEOUT_MS } from '../../base/timeouts.js';
import { updateRefusal } from '../../live/run.js';
import { type ExchangeVerdict, type VerifyReport, verifyCassette } from '../../live/verify.js';
import { serverExitCode } from '../../process/spawn.js';
import { redactArgv, summarize } from '../../redact/index.js';
import { formatValue } from '../../replay/cassette/diff.js';
import { loadCassette } from '../../replay/cassette/load.js';
import { parseTiming } from '../../replay/options.js';
import { verifyReport } from '../../report/from-verify.js';
import { MemorySink } from '../../sink/memory.js';
import { removeFiles, writePrivateFile } from '../../trace/io.js';
import { newMeta } from '../../trace/meta.js';
import type { MetaLine } from '../../trace/types.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { ignorePaths } from '../flags/match.js';
import {
  addReporterFlag,
  parseReporters,
  type ReporterPlan,
  reportClock,
  reportPath,
  writeReports,
} from '../flags/reporter.js';
import { redactedIo, redactionFrom } from '../flags/rules.js';
import { addServerCommandArgument, SERVER_COMMAND_HELP } from '../flags/server-command.js';
import {
  HEADER_EXAMPLE,
  type UpstreamFlags,
  type UpstreamSpec,
  upstreamOptions,
  upstreamSpec,
} from '../flags/upstream.js';
import { type CliIo, print, printInOrder, type RedactedIo, say, traceFiles, userPath } from '../io.js';
import { nodeSpawn } from '../node-spawn.js';
import { parseTimeLimitFlag } from '../parse.js';

interface VerifyFlags extends UpstreamFlags {
  ignore: string[];
  allowUnanswered?: boolean;
  server?: string;
  update?: boolean;
  json?: boolean;
  timeout?: string;
  timing?: string;
  reporter: string[];
}

/** How many diff entries are printed per divergent exchange. */
const DIFF_SHOWN = 10;

/**
 * `tapedeck verify <cassette> -- <server command…>`: re-sends the cassette's client side to the live server and
 * compares its answers with the recorded ones. Exit 0 all match, 1 a divergence (or the server failed), 2 usage.
 * `--update` rewrites the cassette from the live run instead of failing on divergence.
 *
 * @example await run(['verify', 'session.jsonl', '--', 'node', 'server.js']);
 */
export function registerVerify(program: Command, { io, action }: Cli): void {
  const command = program
    .command('verify')
    .description('Re-run a recorded session against a live server and diff its answers with the recording.')
    .usage('<cassette> [options] ([--] <command> [args...] | --upstream <url>)')
    .argument('<cassette>', 'a recorded session: tapedeck/mcp-tape JSONL, mcporter NDJSON, shack JSON');
  addServerCommandArgument(command)
    .option(
      '--ignore <path>',
      'leave this JSONPath of the answers out, e.g. $.result.content[0].text (repeatable)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--server <name>', 'which server of a cassette that holds several (mcporter)')
    .option('--update', 'rewrite the cassette from the live run (tapedeck JSONL, 0600, redacted like record)')
    .option(
      '--allow-unanswered',
      'exit 0 when the only finding is a server request the recorded client never answered (as the Inspector leaves roots/list)',
    )
    .option('--json', 'print the report as JSON ("version": 1)')
    .option(
      '--timeout <duration>',
      `how long each request may take, such as 5s, 1.5m or 500ms (a bare number is milliseconds)`,
      String(ANSWER_TIMEOUT_MS),
    )
    .option(
      '--timing <timing>',
      'none (default: no recorded gaps, the server’s own requests still in their recorded place), recorded (every recorded gap between client messages), or a speed factor such as 2',
    )
    .option('--upstream <url>', 'verify against a remote Streamable HTTP server (or legacy SSE with --sse)');
  addReporterFlag(upstreamOptions(command), ['junit', 'github', 'json'])
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  tapedeck verify traces/session.jsonl -- node dist/server.js\n' +
        "  tapedeck verify traces/session.jsonl --ignore '$.result.content[0].text' -- npx -y my-server\n" +
        '  tapedeck verify traces/session.jsonl --update -- node dist/server.js\n' +
        '  tapedeck verify traces/session.jsonl --upstream http://127.0.0.1:3001/mcp\n' +
        '  tapedeck verify traces/session.jsonl --reporter junit:reports/verify.xml --reporter github -- node dist/server.js\n' +
        '  tapedeck verify traces/session.jsonl --upstream https://mcp.example.com/mcp \\\n' +
        `      ${HEADER_EXAMPLE}   # TOKEN is read from the environment\n\n` +
        'Requests go out one at a time in recorded order (initialize and notifications/initialized included), each\n' +
        'recorded session (an HTTP recording holds one per MCP session) in a live session of its own: a fresh\n' +
        "server process over stdio, a fresh MCP session over HTTP. The server's sampling / elicitation / roots\n" +
        "requests get the client's recorded answers; one the recorded client never answered is left unanswered\n" +
        'again and fails the run unless --allow-unanswered. Such requests keep their recorded place: a client\n' +
        'message waits (up to 5 s, said when it runs out) for those that came before it in the recording, then\n' +
        'gives the server 250 ms to act on their answers (roots it was given) before the next call, as it did\n' +
        'in the recording. --timing recorded keeps every recorded gap as well. Answers are\n' +
        'compared without ids; for initialize, serverInfo.version and instructions are left out. Recorded values\n' +
        'hidden by redaction match anything. Cancelled and unanswered recorded requests are skipped.\n\n' +
        'A reporter writes one test case per exchange (a divergence fails with its structural diff).\n\n' +
        `${SERVER_COMMAND_HELP} The first word after the cassette starts it.\n\n` +
        'Exit codes: 0 every answer matched (or --update wrote the cassette), 1 a divergence, a timeout or a\n' +
        'server that went away, 2 a usage error.',
    )
    .action(
      action(async (cassette: string, argv: string[], flags: VerifyFlags) => {
        const upstream = upstreamSpec(flags, io.env);
        if (argv.length > 0 && upstream) {
          throw usageError(
            `verify takes a server command or --upstream URL, not both (got '${argv[0]}' and ${upstream.url})`,
          );
        }
        if (argv.length === 0 && !upstream) {
          throw usageError(
            'verify needs a server command after the cassette, or --upstream URL, e.g. tapedeck verify session.jsonl node server.js',
          );
        }
        ignorePaths(flags.ignore);
        const timeoutMs = parseTimeLimitFlag('--timeout', flags.timeout ?? String(ANSWER_TIMEOUT_MS));
        if (flags.timing !== undefined) parseTiming(flags.timing);
        const reporters = parseReporters(flags.reporter, {
          formats: ['junit', 'github', 'json'],
          stdoutTakenBy: flags.json ? '--json' : undefined,
          cwd: io.cwd,
        });
        if (flags.update && reporters.reporters.length > 0)
          throw usageError(
            '--reporter reports a check, and --update rewrites the cassette instead of checking it: drop one',
          );
        return await verify(cassette, argv, upstream, flags, timeoutMs, io, reporters);
      }),
    );
}

async function verify(
  path: string,
  argv: string[],
  upstream: UpstreamSpec | undefined,
  flags: VerifyFlags,
  timeoutMs: number,
  io: CliIo,
  reporters: ReporterPlan,
): Promise<number> {
  const clock = reportClock();
  if (flags.update && path === '-')
    throw usageError(
      '--update rewrites the cassette file, and - (standard input) is none: name the cassette file to update',
    );
  // The terminal report stays off stdout when a document is written there instead.
  const quiet = flags.json === true || reporters.replacesStdout;
  // Fails before the server starts when a redaction config is bad, as record does. The same setup hides secrets in
  // what verify prints and reports as in the cassette --update writes.
  const redaction = redactionFrom({}, io);
  const out = redactedIo(io, redaction);
  const file = userPath(io, path);
  const loaded = await loadCassette(file, {
    server: flags.server,
    onDiagnostic: (d) => say(out, `${d.severity}: ${d.message}`),
    // --update rewrites the cassette in place: never through a link (see src/base/no-follow.ts).
    links: flags.update ? 'refuse' : 'follow',
    files: traceFiles(io),
  });
  const foreign = flags.update ? updateRefusal(path, loaded.format, 'verify --update') : undefined;
  if (foreign) throw new TapedeckError('input', foreign);
  if (flags.update && loaded.cassette.servers.length > 1) {
    throw usageError(
      `--update rewrites the whole file, and ${path} holds ${loaded.cassette.servers.length} servers: the others would be lost; verify without --update`,
    );
  }
  let sink: MemorySink | undefined;
  let meta: MetaLine | undefined;
  if (flags.update) {
    const shown = [...redactArgv(argv, redaction.compiled)];
    meta = newMeta({
      label: loaded.meta.label,
      ...(upstream
        ? { transport: upstream.transport === 'sse' ? 'sse' : 'http', url: upstream.url }
        : { command: shown, transport: 'stdio' }),
      redaction: summarize(redaction.config),
      server: loaded.cassette.server,
    });
    sink = new MemorySink({ redact: redaction.redactor });
    sink.start(meta);
  }

  const [command, ...args] = argv;
  // Each verdict is printed as soon as it is known (a slow server's run shows its progress), through the writer.
  const live = quiet ? undefined : printInOrder(out);
  const report = await verifyCassette(loaded.cassette, {
    ...(upstream ? { upstream } : { spawn: nodeSpawn, command, args }),
    timeoutMs,
    timing: flags.timing === undefined ? undefined : parseTiming(flags.timing),
    ignore: flags.ignore,
    capture: sink,
    shown: out.redaction,
    onVerdict: live && ((verdict) => live.print(renderVerdict(verdict))),
    onSession: live && ((session) => live.print(renderSession(session, out))),
  });
  await live?.done();

  let updated = false;
  let raced = false;
  if (sink) {
    await sink.close({
      reason: 'process_exit',
      // 128+n beside the signal's name, as record writes it; an HTTP session has neither.
      exitCode:
        report.exit.signal === null ? report.exit.code : serverExitCode(report.exit.code, report.exit.signal),
      signal: report.exit.signal,
    });
    if (report.incomplete) {
      say(
        out,
        `not updated: the live run did not complete (a timeout or the server went away); ${path} is unchanged`,
      );
    } else if ((report.waits ?? []).length > 0) {
      raced = true;
      // Its answers after that may come from a state the recorded order never let the server be in.
      say(
        io,
        `not updated: the server did not send in time a request the recording has it send before a later message (the ! lines), so the live answers after it may come from a race; ${path} is unchanged (re-record it if the server no longer sends it)`,
      );
    } else {
      await writePrivateFile(file, sink.text);
      // The live run replaces every segment of a rotated cassette.
      await removeFiles(loaded.files.filter((segment) => segment !== file));
      updated = true;
    }
  }

  const corrupt = loaded.errors;
  if (flags.json)
    await print(
      out,
      `${JSON.stringify(jsonReport(path, argv, upstream, report, updated, corrupt, flags, out), null, 2)}
`,
    );
  else if (!quiet) await print(out, renderSummary(path, report, updated, flags.allowUnanswered === true));
  if (updated) return EXIT.ok;
  if (raced) return EXIT.finding;
  // What was lost with a corrupt line was never checked: the fixture cannot pass as it is.
  if (corrupt > 0)
    say(out, `${path} had ${corrupt} corrupt line${corrupt === 1 ? '' : 's'} (skipped): fix or re-record it`);
  const unanswered = report.unanswered.length > 0 && flags.allowUnanswered !== true;
  if (reporters.reporters.length > 0) {
    const input = {
      cassette: reportPath(path, io.cwd),
      report,
      allowUnanswered: flags.allowUnanswered === true,
      corruptLines: corrupt,
    };
    await writeReports(reporters, verifyReport(input, clock.context()), {
      ...out,
      stdoutTaken: flags.json === true,
    });
  }
  return report.differed > 0 || report.notes.length > 0 || corrupt > 0 || unanswered ? EXIT.finding : EXIT.ok;
}

/**
 * The end of the text report: notes, the summary line, what the client left unanswered, the update.
 *
 * @example renderSummary('s.jsonl', report, false, false) // → 'verified 4 exchanges: 4 match, 0 differ\n'
 */
function renderSummary(
  path: string,
  report: VerifyReport,
  updated: boolean,
  allowUnanswered: boolean,
): string {
  const lines = report.notes.map((note) => `✗ ${note}`);
  for (const wait of report.waits ?? []) lines.push(`! ${wait}`);
  lines.push(summaryLine(report));
  const unanswered = unansweredLine(report, allowUnanswered);
  if (unanswered) lines.push(unanswered);
  if (updated) {
    const kept = report.total;
    lines.push(`updated ${path} from the live run (${kept} exchange${kept === 1 ? '' : 's'})`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * What the recorded client left unanswered, said in those words, and whether it fails the run.
 *
 * @example unansweredLine(report, false) // → '✗ the client side left 1 server request unanswered (roots/list) …'
 */
function unansweredLine(report: VerifyReport, allowed: boolean): string | undefined {
  const n = report.unanswered.length;
  if (n === 0) return undefined;
  const what = `the client side left ${n} server request${n === 1 ? '' : 's'} unanswered (${report.unanswered.join(', ')}), as it did in the recording`;
  return allowed
    ? `${what}; accepted (--allow-unanswered)`
    : `✗ ${what}; pass --allow-unanswered to accept it`;
}

/** A header before each recorded session's verdicts, when there are several ('' for one). */
function renderSession(
  session: { number: number; conn: string | undefined; of: number },
  out: RedactedIo,
): string {
  if (session.of < 2) return '';
  // The recorded connection is the MCP session id over HTTP: named by its stable hash, as the trace names it.
  const conn = session.conn === undefined ? '' : ` (${out.redaction.conn(session.conn)})`;
  return `session ${session.number} of ${session.of}${conn}\n`;
}

/** `verified N exchanges: K match, D differ` (+ skipped). */
function summaryLine(report: VerifyReport): string {
  const skipped = report.skipped > 0 ? `, ${report.skipped} skipped` : '';
  const plural = report.total === 1 ? '' : 's';
  const sessions = report.sessions.length > 1 ? ` in ${report.sessions.length} sessions` : '';
  const differ =
    report.sessions.length > 1 && report.differed > 0
      ? ` (${report.sessions
          .filter((s) => s.differed > 0)
          .map((s) => `session ${s.number}: ${s.differed}`)
          .join(', ')})`
      : '';
  return `verified ${report.total} exchange${plural}${sessions}: ${report.matched} match, ${report.differed} differ${differ}${skipped}`;
}

/** One exchange's verdict as the text report prints it as soon as it is known ('' for a match). */
function renderVerdict(verdict: ExchangeVerdict): string {
  if (verdict.status === 'match') return '';
  const line = verdict.lineNo === undefined ? '' : ` (line ${verdict.lineNo})`;
  const head = `#${verdict.ordinal} ${verdict.summary}${line}`;
  if (verdict.status === 'skipped') return `- ${head}: skipped, ${verdict.reason}\n`;
  const out = [`✗ ${head}`];
  if (verdict.reason) out.push(`    ${verdict.reason}`);
  if (verdict.httpStatus !== undefined)
    out.push(`    the server refused the request with HTTP ${verdict.httpStatus} and this JSON-RPC error:`);
  for (const note of verdict.notes) out.push(`    ${note}`);
  if (verdict.diff) {
    for (const entry of verdict.diff.entries.slice(0, DIFF_SHOWN)) {
      out.push(`    ${entry.path}`);
      out.push(`      recorded ${formatValue(entry.recorded, 120)}`);
      out.push(`      live     ${formatValue(entry.live, 120)}`);
    }
    const more = verdict.diff.total - Math.min(DIFF_SHOWN, verdict.diff.entries.length);
    if (more > 0) out.push(`    … and ${more} more difference${more === 1 ? '' : 's'}`);
  }
  return `${out.join('\n')}\n`;
}

function jsonReport(
  path: string,
  argv: string[],
  upstream: UpstreamSpec | undefined,
  report: VerifyReport,
  updated: boolean,
  corruptLines: number,
  flags: VerifyFlags,
  out: RedactedIo,
) {
  const unansweredFails = report.unanswered.length > 0 && flags.allowUnanswered !== true;
  return {
    version: 1,
    cassette: path,
    ...(upstream ? { upstream: upstream.url } : { command: [...redactArgv(argv, out.redaction.compiled)] }),
    ok: report.differed === 0 && report.notes.length === 0 && corruptLines === 0 && !unansweredFails,
    summary: {
      exchanges: report.total,
      match: report.matched,
      differ: report.differed,
      skipped: report.skipped,
      sessions: report.sessions.length,
      unanswered: report.unanswered.length,
      corruptLines,
    },
    sessions: report.sessions.map((s) => ({
      session: s.number,
      conn: s.conn === undefined ? null : out.redaction.conn(s.conn),
      exchanges: s.total,
      match: s.matched,
      differ: s.differed,
      skipped: s.skipped,
      server: { exitCode: s.exit.code, signal: s.exit.signal },
    })),
    exchanges: report.verdicts.map((v) => ({
      session: v.session,
      ordinal: v.ordinal,
      method: v.method,
      request: v.summary,
      line: v.lineNo ?? null,
      status: v.status,
      ms: v.ms ?? null,
      ...(v.reason !== undefined ? { reason: v.reason } : {}),
      ...(v.notes.length > 0 ? { notes: v.notes } : {}),
      ...(v.httpStatus !== undefined ? { httpStatus: v.httpStatus } : {}),
      ...(v.diff ? { diff: { total: v.diff.total, entries: v.diff.entries } } : {}),
    })),
    notes: report.notes,
    unanswered: report.unanswered,
    waits: report.waits ?? [],
    server: { exitCode: report.exit.code, signal: report.exit.signal },
    updated,
  };
}
