import type { Command } from 'commander';
import { redactorOf } from '../../redact/engine.js';
import { redactText } from '../../redact/index.js';
import { renderAuthLane } from '../../report/text/auth-lane.js';
import { palette } from '../../report/text/color.js';
import { FailedCalls } from '../../report/text/failed-calls.js';
import { SessionGroups } from '../../report/text/session-groups.js';
import { TimelineRenderer } from '../../report/text/timeline.js';
import { type AuthStep, authStepOf, isAuthEvent } from '../../trace/auth-flow.js';
import { encodeLine } from '../../trace/encode.js';
import { type PairEvent, Pairer } from '../../trace/pairing.js';
import type { TraceDiagnostic } from '../../trace/reader.js';
import { inTimeOrder } from '../../trace/time-order.js';
import { LLM_FLAG } from '../agent-run.js';
import type { Cli } from '../context.js';
import { EXIT, usageError } from '../errors.js';
import { addLastFlag, type LastFlag, traceArgument } from '../flags/last.js';
import { redactedIo, redactionFrom } from '../flags/rules.js';
import { type CliIo, say, traceFiles, userPath } from '../io.js';
import { createOutput } from '../stream/output.js';
import { openSource } from '../stream/source.js';
import { terminalWidth, useColor } from '../terminal.js';

export interface ShowOptions {
  /** Print the trace lines as JSONL instead of a timeline. */
  raw?: boolean;
  /** Keep reading as the file grows; stop at the `end` line or on SIGINT. */
  follow?: boolean;
  /** The LLM recorder's trace of the same run: print the agent's timeline (model turns, linked MCP calls). */
  llm?: string;
  /** Only the failing calls (request and answer), then `failed: #ids`. */
  errors?: boolean;
  /** Only the lines of this session (its key as the timeline shows it), with those of no session. */
  session?: string;
}

/**
 * Prints a trace as a timeline (or as JSONL with `raw`), streaming: memory stays flat on multi-GB traces. Every line
 * is redacted as a recording is before it is shown (a trace tapedeck recorded comes through as it is; another tool's
 * loses what a recording would hide). Resolves to the number of corrupt lines met (reported on stderr and skipped).
 * `stop` ends `--follow`; without it, SIGINT does.
 *
 * @example await showTrace('traces/everything.jsonl', { follow: true }, processIo());
 */
export async function showTrace(
  path: string,
  options: ShowOptions,
  io: CliIo,
  stop?: AbortSignal,
): Promise<number> {
  if (options.raw && options.errors)
    throw usageError('--errors lists the failing calls as a timeline; it does not go with --raw');
  if (options.session !== undefined && options.llm !== undefined)
    throw usageError('--session picks one session of an MCP trace; it does not go with --llm');
  if (options.session?.trim() === '')
    throw usageError("--session needs a session key, as the timeline's ⚑ session rows show it");
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  const follow = options.follow === true;
  if (follow) {
    if (stop) stop.addEventListener('abort', onSigint, { once: true });
    else process.once('SIGINT', onSigint);
  }
  const redaction = redactionFrom({}, io);
  const redact = redactorOf(redaction.compiled);
  const notices = redactedIo(io, redaction);
  let errors = 0;
  const warn = (d: TraceDiagnostic) => {
    if (d.severity === 'error') errors += 1;
    say(notices, `${d.severity}: ${d.message}`);
  };
  const out = createOutput(io.stdout);
  if (options.llm !== undefined) {
    try {
      const { loadAgentRun } = await import('../agent-run.js');
      const { renderAgentRun } = await import('../../llm/timeline.js');
      const run = await loadAgentRun(path, options.llm, io);
      const rows = renderAgentRun(run, terminalWidth(io.stdout, io.env));
      // Made from traffic: shown through the same redaction as every other line.
      await out.write(`${rows.map((row) => redactText(row, redaction.compiled)).join('\n')}\n`);
      return errors;
    } finally {
      out.dispose();
    }
  }
  try {
    const { lines } = await openSource(path, {
      follow: follow ? controller.signal : undefined,
      onDiagnostic: warn,
      files: traceFiles(io),
    });
    const groups = new SessionGroups(options.session?.trim());
    if (options.raw) {
      for await (const read of lines) {
        for (const { line } of groups.push(redact(read.line), read.lineNo))
          if (!(await out.write(encodeLine(line)))) return errors;
        if (follow && read.line.type === 'end') break;
      }
      sessionMissing(groups, options.session);
      return errors;
    }
    const color = useColor(io.stdout, io.env);
    const width = terminalWidth(io.stdout, io.env);
    const renderer = new TimelineRenderer({ color, width });
    const pairer = new Pairer({ children: 'none' });
    const failed = options.errors ? new FailedCalls() : undefined;
    const print = async (rows: string[]) => rows.length === 0 || (await out.write(`${rows.join('\n')}\n`));
    const show = async (events: readonly PairEvent[]) => {
      for (const ev of events)
        for (const shown of failed ? failed.push(ev) : [ev])
          if (!(await print(renderer.render(shown)))) return false;
      return true;
    };
    // In time order: a recorder with two sides (the stdio ↔ HTTP bridge) writes some lines after later ones.
    // Followed, a line is printed as it is written.
    // The OAuth flow, if the trace holds one, is drawn after the timeline as its own lane.
    const auth: AuthStep[] = [];
    const paint = palette(color);
    for await (const read of follow ? lines : inTimeOrder(lines)) {
      for (const { line: shown, lineNo } of groups.push(redact(read.line), read.lineNo)) {
        if (isAuthEvent(shown)) auth.push(authStepOf(shown, lineNo));
        const header = failed ? undefined : groups.header(shown, paint);
        if (header !== undefined && !(await print([header]))) return errors;
        if (!(await show(pairer.push(shown, lineNo)))) return errors;
      }
      if (follow && read.line.type === 'end') break;
    }
    if (!(await show(pairer.finish()))) return errors;
    sessionMissing(groups, options.session);
    if (failed) await print([failed.summary()]);
    const table = failed ? [] : groups.table(paint);
    if (table.length > 0) await print(['', ...table]);
    const lane = failed ? [] : renderAuthLane(auth, { color, width });
    if (lane.length > 0) await print(['', ...lane]);
    return errors;
  } finally {
    process.off('SIGINT', onSigint);
    stop?.removeEventListener('abort', onSigint);
    out.dispose();
  }
}

/** --session named a session the trace does not hold: say which it holds. */
function sessionMissing(groups: SessionGroups, asked: string | undefined): void {
  if (asked === undefined || groups.found()) return;
  const keys = groups.keys();
  throw usageError(
    `no session '${asked.trim()}' in this trace: ${keys.length === 0 ? 'it has no session keys' : `its sessions are ${keys.join(', ')}`}`,
  );
}

/** Registers `tapedeck show <trace> | --last`. */
export function registerShow(program: Command, { io, action }: Cli): void {
  const command = program
    .command('show')
    .description('Print a trace as a timeline: every message with its time, direction, latency and errors.')
    .argument(
      '[trace]',
      'trace file: tapedeck / mcp-tape JSONL, mcporter NDJSON, shack JSON, HTTP exchanges JSON or HAR',
    )
    .option('--raw', 'print the trace lines as JSONL instead of a timeline')
    .option(...LLM_FLAG)
    .option('--errors', 'only the failing calls (request and answer), then a last line `failed: #ids`')
    .option(
      '--session <key>',
      'only this session (its key as the ⚑ session rows show it; the recorder mints one per client for stateless 2026-07-28 traffic)',
    )
    .option(
      '-f, --follow',
      'keep reading a trace that is still being written; stops at its end line or on Ctrl-C',
    );
  addLastFlag(command)
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  tapedeck show ~/.tapedeck/traces/everything-20261129.jsonl',
        '  tapedeck show --follow live.jsonl      watch a recording as it happens',
        '  tapedeck show --last                   the newest trace of the recording folder',
        '  tapedeck show --raw calls.ndjson       an mcporter recording as tapedeck JSONL',
        '  tapedeck show mcp.jsonl --llm agent-llm.jsonl   model turns with their tool calls and the MCP calls',
        '  tapedeck show --errors run.jsonl       the failing calls only, ending with failed: #ids',
        '  tapedeck show --session 8952be798246 http.jsonl   one session of a trace that holds several',
        '',
        '→ is client→server, ← server→client. Server messages that belong to a request are indented under it;',
        'one that nothing on the wire ties to a request (it only arrived while that request was open) is not',
        'indented, and says "maybe for #id". Rows fit the terminal (else $COLUMNS, else 80 columns): previews are',
        'cut, error messages wrap. Colours only on a terminal, never when NO_COLOR is set.',
        "A trace of several sessions (an HTTP recording serves many clients) heads each run of one session's rows",
        'with "┄ session KEY", and ends with a table of its sessions.',
      ].join('\n'),
    )
    .action(
      action(async (trace: string | undefined, options: ShowOptions & LastFlag) => {
        const path = userPath(io, traceArgument(trace, options, 'show', io));
        // Corrupt lines are skipped so the rest can be seen, but the run still reports them in its exit code.
        return (await showTrace(path, options, io)) > 0 ? EXIT.input : EXIT.ok;
      }),
    );
}
