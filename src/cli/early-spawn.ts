import { EarlyRelay, type EarlyStreams, type EarlyTraffic } from '../proxy/early-relay.js';
import { FORWARDED_SIGNALS, forwardSignals, SIGNAL_GRACE_MS } from '../proxy/forward-signals.js';
import { type OptionLookup, withDashes } from './flags/server-words.js';

export type { EarlyStreams };

import { type StartedServer, startServer } from '../proxy/start.js';

/**
 * `tapedeck record [--] <server>` is put in front of a server an MCP client starts, and the client waits for the
 * server's first answer: every millisecond tapedeck spends before the server starts is added to that wait. So the
 * executable starts the server first — from the raw arguments, before the CLI framework and the recording code
 * are loaded — and a relay forwards the bytes both ways until the recorder, once loaded, takes the server and
 * what was forwarded over (src/proxy/early-relay.ts). So the first answer waits for neither: on a machine busy
 * starting every server of a client at once, loading the recorder is what takes longest.
 *
 * Faults change what is forwarded: with --fault or --faults the server is started but its bytes wait in the pipes
 * for the recorder. A command line the recorder then refuses (a usage error) stops the server again; its client
 * sees the one line of why on stderr and the end of the session.
 *
 * Signals are passed on to the server from the start too. A client that has its answer may signal at once (the v2
 * SDK client ends its `server/discover` probe with SIGTERM), and with the relay the answer can come before the
 * recorder is loaded: the default action would end this process there, with no trace and the server left to
 * notice on its own. Passed on, the server ends, and the recorder, once loaded, writes the trace of it all.
 */

interface Early {
  argv: string[];
  server: StartedServer;
  relay: EarlyRelay | undefined;
  /** Stops passing signals on (the recorder's proxy does from then on). */
  stopSignals: () => void;
}

/** What the recorder takes over: the running server and what the relay forwarded before it was loaded. */
export interface EarlyHandover {
  /** The server started early, when it is the one the recorder asks for (any other was stopped). */
  server: StartedServer | undefined;
  /** What was forwarded before the recorder was loaded (nothing is, with faults). */
  traffic: EarlyTraffic | undefined;
  /**
   * Stops passing signals on to the server started early: call it once the recorder passes them on itself, so
   * that a server never gets one signal twice. Until then, one that comes is still passed on.
   */
  stopSignals: () => void;
}

let early: Early | undefined;

/** Options after which record does not run a stdio server now (help, a listing, an HTTP recording …). */
const NOT_STDIO = /^(-h|--help|--redact-defaults|--upstream(=.*)?|--listen(=.*)?|--stdio|--sse)$/;
/** Options that change the forwarded bytes: the recorder must see every byte before it is forwarded. */
const FAULTS = /^--faults?(=.*)?$/;

/**
 * `record`'s options that take a value, as its command declares them (a test keeps the two in step): the server
 * command of a line without `--` starts at the first other word (src/cli/flags/server-words.ts). The lookup need
 * not be exact: a server started for the wrong words is stopped when the recorder asks for other ones.
 */
export const RECORD_VALUE_OPTIONS: readonly string[] = [
  '--out',
  '--file',
  '--label',
  '--max-bytes',
  '--max-files',
  '--max-message-bytes',
  '--upstream',
  '--listen',
  '--allow-host',
  '--oauth',
  '--llm',
  '--header',
  '--fault',
  '--faults',
  '--seed',
  '--redact',
  '--redact-file',
  '--redact-mode',
];
/** `record`'s options whose value may be left out: `--live [url]` takes the next word only when it is a URL. */
export const RECORD_OPTIONAL_VALUE_OPTIONS: readonly string[] = ['--live'];

const recordOptions: OptionLookup = (flag) => {
  if (RECORD_VALUE_OPTIONS.includes(flag)) return 'value';
  if (RECORD_OPTIONAL_VALUE_OPTIONS.includes(flag)) return { optional: (word) => /^https?:\/\//i.test(word) };
  return undefined;
};

/**
 * Starts the server of a `record … [--] <command…>` command line at once; does nothing for any other command line.
 *
 * @example startEarly(process.argv.slice(2)); const { run } = await import('./main.js');
 */
export function startEarly(argv: readonly string[], streams: EarlyStreams = {}): void {
  if (argv[0] !== 'record' || early !== undefined) return;
  const words = withDashes(argv.slice(1), recordOptions, 0);
  const split = words.indexOf('--');
  if (split === -1 || split === words.length - 1) return;
  const options = words.slice(0, split);
  if (options.some((option) => NOT_STDIO.test(option))) return;
  const [command, ...args] = words.slice(split + 1) as [string, ...string[]];
  const stderr = options.includes('--no-stderr') ? 'inherit' : 'pipe';
  const server = startServer(command, args, { stderr });
  const relay = options.some((option) => FAULTS.test(option)) ? undefined : new EarlyRelay(server, streams);
  early = {
    argv: [command, ...args],
    server,
    relay,
    // Until the recorder's proxy passes them on itself; a SIGKILL due for one passed on before stays due.
    stopSignals: forwardSignals(server.child, FORWARDED_SIGNALS, SIGNAL_GRACE_MS).release,
  };
}

/**
 * The server started early for this command line, handed over once: only when it is the same command and the
 * same stderr choice the recorder would start (anything else is stopped, and the recorder starts its own; what
 * was relayed is handed over all the same, so the new server gets the client's bytes and the trace keeps all).
 *
 * @example const early = takeEarly(argv, options.stderr ? 'pipe' : 'inherit');
 */
export function takeEarly(argv: readonly string[], stderr: 'pipe' | 'inherit'): EarlyHandover {
  const taken = early;
  early = undefined;
  if (taken === undefined) return { server: undefined, traffic: undefined, stopSignals: () => {} };
  const traffic = taken.relay?.take();
  const same =
    taken.server.stderr === stderr &&
    taken.argv.length === argv.length &&
    taken.argv.every((word, i) => word === argv[i]);
  if (same) return { server: taken.server, traffic, stopSignals: taken.stopSignals };
  taken.stopSignals();
  taken.server.stop();
  return { server: undefined, traffic, stopSignals: () => {} };
}

/** Stops a server started early that the recorder never took (the command line was refused). */
export function discardEarly(): void {
  const left = early;
  early = undefined;
  left?.relay?.take();
  left?.stopSignals();
  left?.server.stop();
}
