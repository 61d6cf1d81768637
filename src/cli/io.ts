import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { finishStdout, openStdout } from '../proxy/streams.js';
import type { OutputRedaction } from '../redact/output.js';
import { localTraceFiles } from '../trace/io.js';
import { createOutput } from './stream/output.js';

/**
 * What a command may use of the world it runs in, handed to every command by the runner (src/cli/main.ts): where
 * its results and notices go, the environment it reads, the folder relative paths start from. In-process runs
 * (tests, a host embedding the CLI) pass their own; `tapedeck` itself runs with the process's (processIo).
 *
 * The long-running commands — record, replay, run, serve, view, mcp — still own the process's signals. A session
 * replay or run serves on stdio speaks on io.stdin and io.stdout (sessionStdio); record's proxy and `mcp` over stdio
 * still relay on the process's own stdin and stdout (src/proxy, src/mcp). A server a command starts inherits the
 * process's own environment, as any child process does.
 */
export interface CliIo {
  /** Results: what the command was asked for (a timeline, a table, JSON, a share link). */
  stdout: CliStream;
  /** Notices (`tapedeck: recording to …`), warnings, and the one line of a failure. */
  stderr: CliStream;
  /** What `-` reads, where a command takes a trace from standard input (scan -, redact -, show -, stats -). */
  stdin: NodeJS.ReadableStream;
  /** The variables the command reads: TAPEDECK_*, XDG_CONFIG_HOME, NO_COLOR, the `${VAR}`s of --header, PATH … */
  env: Readonly<Record<string, string | undefined>>;
  /** The working folder: project files (./.tapedeck/redact.json, .tapedeck.json) are found from it, relative
   * paths resolve against it. */
  cwd: string;
  /**
   * Set for a command that writes what it read from traffic (see withRedaction): everything it prints, says and
   * reports goes through it. Unset where a command writes only its own words — a share link, a token it minted, the
   * rule list — which are written as they are.
   */
  redaction?: OutputRedaction | undefined;
}

/** An io whose output from traffic is redacted. */
export type RedactedIo = CliIo & { redaction: OutputRedaction };

/**
 * The io a command that writes from traffic runs with: the same streams, environment and folder, with `redaction`
 * applied to every print(), say() and report it writes (the trace's rules: see redactedIo in flags/rules.ts). Trace
 * files read through it are the run's own (`-` is read once).
 *
 * @example const out = withRedaction(io, outputRedaction(compiled)); say(out, `injected ${describeFault(record)}`);
 */
export function withRedaction(io: CliIo, redaction: OutputRedaction): RedactedIo {
  const redacted: RedactedIo = {
    stdout: io.stdout,
    stderr: io.stderr,
    get stdin() {
      return io.stdin;
    },
    env: io.env,
    cwd: io.cwd,
    redaction,
  };
  roots.set(redacted, rootIo(io));
  return redacted;
}

/** Each io made by withRedaction → the run's own io it was made from. */
const roots = new WeakMap<CliIo, CliIo>();

/**
 * The run's own io behind one made by withRedaction (the io itself otherwise): what a run does once — read `-`,
 * say a notice — is keyed by it.
 *
 * @example rootIo(withRedaction(io, redaction)) === io // true
 */
export function rootIo(io: CliIo): CliIo {
  return roots.get(io) ?? io;
}

/** `text` as the io writes it: through its redaction when it has one. */
function shown(io: CliIo, text: string): string {
  return io.redaction === undefined ? text : io.redaction.text(text);
}

/** A stream a command writes to; a terminal says so (colour, the width rows and help are fitted to). */
export type CliStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/**
 * The process's own streams, environment and working folder: what `tapedeck` runs with.
 *
 * @example process.exitCode = await run(process.argv.slice(2), processIo());
 */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // Looked up only when read: opening the process's stdin is not free, and most commands never do.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
  };
}

/**
 * Writes one notice line to stderr, `tapedeck: ` first.
 *
 * @example say(io, `recording to ${path}`) // stderr: "tapedeck: recording to /home/me/.tapedeck/traces/…"
 */
export function say(io: CliIo, text: string): void {
  io.stderr.write(`tapedeck: ${shown(io, text)}\n`);
}

/**
 * Prints a command's result — what a renderer returned — on stdout, the one way results are written: it waits for
 * the stream to drain (a big report into a slow pipe is not held in memory twice) and a reader that went away
 * (`… | head`) ends the output quietly. Resolves false when the reader is gone.
 *
 * @example await print(io, renderStats(stats, { color: false }));
 */
export async function print(io: CliIo, text: string): Promise<boolean> {
  const out = createOutput(io.stdout);
  try {
    return await out.write(shown(io, text));
  } finally {
    out.dispose();
  }
}

/** Results printed as they arrive from a callback that cannot wait for the stream; see printInOrder(). */
export interface OrderedPrinter {
  /** Queues `text` for print(), after everything queued before it. */
  print(text: string): void;
  /** Resolves once everything queued is written: false when the reader went away; throws what a write threw. */
  done(): Promise<boolean>;
}

/**
 * Prints through print(), in order, what a synchronous callback hands over while a command works — verify's
 * verdicts, each printed as soon as it is known. Each text waits for the one before it (and for its drain), a
 * reader that went away ends the printing quietly, and a write failure is kept for done() to throw rather than
 * lost in a callback.
 *
 * @example const live = printInOrder(io); await verifyCassette(c, { onVerdict: (v) => live.print(render(v)) }); await live.done();
 */
export function printInOrder(io: CliIo): OrderedPrinter {
  let open = true;
  let failure: { error: unknown } | undefined;
  let queue: Promise<void> = Promise.resolve();
  return {
    print(text) {
      if (text === '') return;
      queue = queue.then(async () => {
        if (!open || failure) return;
        try {
          open = await print(io, text);
        } catch (error) {
          failure = { error };
        }
      });
    },
    async done() {
      await queue;
      if (failure) throw failure.error;
      return open;
    },
  };
}

const filesOf = new WeakMap<CliIo, ReturnType<typeof localTraceFiles>>();

/**
/** Where a session served on stdio speaks its protocol, and how to let its last bytes out at the end. */
export interface SessionStdio {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Resolves once everything written has left (or the reader has gone away). */
  finish(): Promise<void>;
}

/**
 * The streams a stdio session (replay, run) is served on: io.stdin, and io.stdout — the process's own through a
 * writer of fd 1 that never blocks (see openStdout), so a client that stops reading cannot freeze the session.
 *
 * @example const { input, output, finish } = sessionStdio(io); … await finish();
 */
export function sessionStdio(io: CliIo): SessionStdio {
  if (io.stdout !== process.stdout) return { input: io.stdin, output: io.stdout, finish: async () => {} };
  const stdout = openStdout();
  return { input: io.stdin, output: stdout.stream, finish: () => finishStdout(stdout) };
}

/**
 * The trace files a run reads: the local file system, with `-` read from the run's stdin (once, then held).
 *
 * @example const files = traceFiles(io); await openTrace('-', {}, files); files.fromPipe('-') // → true
 */
export function traceFiles(io: CliIo): ReturnType<typeof localTraceFiles> {
  const root = rootIo(io);
  let files = filesOf.get(root);
  if (files === undefined) {
    files = localTraceFiles(() => root.stdin);
    filesOf.set(root, files);
  }
  return files;
}

/**
 * A path the user gave, as the command opens it: against `io.cwd` when relative. Where `io.cwd` is the process's
 * own working folder the path stays as written, so messages name it as the user wrote it.
 *
 * @example userPath(io, 'traces/run.jsonl') // → 'traces/run.jsonl' in a shell; '/tmp/t/traces/run.jsonl' in a test
 */
export function userPath(io: CliIo, path: string): string {
  if (path === '-' || isAbsolute(path) || io.cwd === process.cwd()) return path;
  return resolve(io.cwd, path);
}

/**
 * The home folder as the environment names it ($HOME; %USERPROFILE% on Windows), else the account's.
 *
 * @example homeOf(io.env) // → '/home/me'
 */
export function homeOf(env: CliIo['env']): string {
  const named = process.platform === 'win32' ? env.USERPROFILE : env.HOME;
  return named !== undefined && named !== '' ? named : homedir();
}
