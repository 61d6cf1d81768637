import { describeFault } from '../../faults/records.js';
import { recordStdioSession } from '../../proxy/session.js';
import { startServer } from '../../proxy/start.js';
import { redactArgv, redactText, summarize } from '../../redact/index.js';
import { deriveLabel, safeLabel } from '../../sink/naming.js';
import { timestamp } from '../../trace/encode.js';
import { newMeta } from '../../trace/meta.js';
import { type EarlyHandover, takeEarly } from '../early-spawn.js';
import { announceFaults, type FaultFlags, faultPlanOf, warnUnmatched } from '../flags/faults.js';
import type { LiveFlag } from '../flags/live.js';
import { type RuleFlags, redactedIo, redactionFrom } from '../flags/rules.js';
import { type CliIo, say } from '../io.js';
import { holdSignals } from '../signals.js';
import { recordingSink } from './live.js';
import { resolveTracePath, type TracePathFlags } from './trace-path.js';

/**
 * `tapedeck record -- <server command…>`: the stdio proxy between an MCP client and the server it starts,
 * recording both directions. The server may already be running: the executable starts it before this code is
 * loaded (src/cli/early-spawn.ts), and it is taken over here.
 */

/** What a stdio recording is told by `record`'s flags. */
export interface StdioRecordOptions extends RuleFlags, LiveFlag, TracePathFlags, FaultFlags {
  label?: string | undefined;
  maxBytes: number;
  maxFiles: number;
  maxMessageBytes: number;
  /** false with --no-stderr: the server's stderr is passed through, not recorded. */
  stderr: boolean;
  quiet?: boolean | undefined;
}

/**
 * Records one stdio session; resolves to the server's exit code (128+n for a signal).
 *
 * @example const code = await recordStdio(['npx', '-y', '@modelcontextprotocol/server-everything'], options, io);
 */
export async function recordStdio(argv: string[], options: StdioRecordOptions, io: CliIo): Promise<number> {
  // From the start: the proxy forwards signals to the server while it runs; a late one (after the server exited,
  // while the end line is written) must not kill the recorder before the trace is finished.
  const held = holdSignals();
  // The server the executable started before this code was loaded, if it is the one asked for.
  const early = takeEarly(argv, options.stderr ? 'pipe' : 'inherit');
  try {
    return await recordSession(argv, options, early, io);
  } catch (err) {
    // Refused after all (a bad redaction rule, an unreachable --live collector): no session is recorded.
    early.server?.stop();
    throw err;
  } finally {
    early.stopSignals();
    held.release();
  }
}

async function recordSession(
  argv: string[],
  options: StdioRecordOptions,
  early: EarlyHandover,
  io: CliIo,
): Promise<number> {
  const started = early.server;
  // Everything that can fail on the user's input fails here, before a file is created or the server started.
  const { config, compiled, redactor } = redactionFrom(options, io);
  // What the recorder says of the traffic (a fault on a resource, a warning) hides what the trace hides.
  const out = redactedIo(io, { compiled });
  const faults = await faultPlanOf(options, io);
  announceFaults(faults, out);
  // A token passed as an argument must reach neither the label nor the file name (nor meta.command, which the
  // redactor would hide again; markers are left as they are).
  const shownArgv = [...redactArgv(argv, compiled)];
  const label =
    options.label !== undefined ? safeLabel(redactText(options.label, compiled)) : deriveLabel(shownArgv);
  const file = {
    ...resolveTracePath(options, label, io),
    maxBytes: options.maxBytes,
    maxFiles: options.maxFiles,
    redact: redactor,
    warn: (message: string) => say(out, message),
  };
  const { sink, close } = await recordingSink(options, label, file, io);
  // A session that began before this code was loaded began when the server was started.
  const startedAt = started !== undefined ? { startedAt: timestamp(started.startedAtMs) } : {};
  sink.start(
    newMeta({ label, command: shownArgv, redaction: summarize(config), transport: 'stdio', ...startedAt }),
  );
  const [command, ...args] = argv as [string, ...string[]];
  const server = started ?? startServer(command, args, { stderr: options.stderr ? 'pipe' : 'inherit' });
  // Said once the server runs: a server that cannot start gets its one line of why, and nothing else.
  if (options.quiet !== true && (await server.spawned) === undefined) say(out, `recording to ${sink.path}`);
  try {
    const code = await recordStdioSession(argv, sink, {
      maxMessageBytes: options.maxMessageBytes,
      recordStderr: options.stderr,
      started: server,
      early: early.traffic,
      // Until now the executable passed signals on to the server it started (a signal while this code loaded).
      onSignalsForwarded: early.stopSignals,
      faults,
      onFault: (record) => say(out, `injected ${describeFault(record)}`),
    });
    if (faults) warnUnmatched(faults, out);
    return code;
  } finally {
    await close();
  }
}
