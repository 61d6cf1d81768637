import { type StartedServer, startServer } from '../proxy/start.js';

/**
 * `tapedeck record -- <server>` is put in front of a server an MCP client starts, and the client waits for the
 * server's first answer: every millisecond tapedeck spends before the server starts is added to that wait. So the
 * executable starts the server first — from the raw arguments, before the CLI framework and the recording code
 * are loaded — and the recorder, once loaded, takes it over; the server boots while tapedeck loads. Nothing is
 * lost meanwhile: the client's and the server's bytes wait in the pipes until the recorder reads them.
 *
 * A command line the recorder then refuses (a usage error) stops the server again before it got a single byte.
 */

interface Early {
  argv: string[];
  server: StartedServer;
}

let early: Early | undefined;

/** Options after which record does not run a stdio server now (help, a listing, an HTTP recording …). */
const NOT_STDIO = /^(-h|--help|--redact-defaults|--upstream(=.*)?|--listen(=.*)?|--stdio|--sse)$/;

/**
 * Starts the server of a `record … -- <command…>` command line at once; does nothing for any other command line.
 *
 * @example startEarly(process.argv.slice(2)); const { run } = await import('./main.js');
 */
export function startEarly(argv: readonly string[]): void {
  if (argv[0] !== 'record' || early !== undefined) return;
  const split = argv.indexOf('--');
  if (split === -1 || split === argv.length - 1) return;
  const options = argv.slice(1, split);
  if (options.some((option) => NOT_STDIO.test(option))) return;
  const [command, ...args] = argv.slice(split + 1) as [string, ...string[]];
  const stderr = options.includes('--no-stderr') ? 'inherit' : 'pipe';
  early = { argv: [command, ...args], server: startServer(command, args, { stderr }) };
}

/**
 * The server started early for this command line, handed over once: only when it is the same command and the
 * same stderr choice the recorder would start (anything else is stopped, and the recorder starts its own).
 *
 * @example const started = takeEarly(argv, options.stderr ? 'pipe' : 'inherit');
 */
export function takeEarly(argv: readonly string[], stderr: 'pipe' | 'inherit'): StartedServer | undefined {
  const taken = early;
  early = undefined;
  if (taken === undefined) return undefined;
  const same =
    taken.server.stderr === stderr &&
    taken.argv.length === argv.length &&
    taken.argv.every((word, i) => word === argv[i]);
  if (same) return taken.server;
  taken.server.stop();
  return undefined;
}

/** Stops a server started early that the recorder never took (the command line was refused). */
export function discardEarly(): void {
  const left = early;
  early = undefined;
  left?.server.stop();
}
