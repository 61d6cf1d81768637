import type { Readable, Writable } from 'node:stream';
import { CAPTURE_QUEUE_DEFAULTS, CaptureQueue } from '../capture/capture-queue.js';
import { PipeCapture } from '../capture/pipe-capture.js';
import type { FaultOptions } from '../faults/options.js';
import { type FaultRecord, faultEvent } from '../faults/records.js';
import { serverExitCode } from '../process/spawn.js';
import type { TraceSink } from '../sink/sink.js';
import { timestamp } from '../trace/encode.js';
import type { EarlyChunk, EarlyWriteError } from './early-relay.js';
import { FORWARDED_SIGNALS, forwardSignals, SIGNAL_GRACE_MS } from './forward-signals.js';
import { type Draining, drainWithin, Pump } from './pump.js';
import { type StartedServer, startServer } from './start.js';
import { StdioFaults } from './stdio-faults.js';

/**
 * `faults` are injected between the server and the client (see src/faults): the named answers are changed on their
 * way to the client, the trace keeps what the server sent, and a `fault` event says what the client got instead.
 */
export interface StdioProxyOptions extends FaultOptions {
  /** Told of every fault as it is injected (besides its event in the trace). */
  onFault?: ((record: FaultRecord) => void) | undefined;
  command: string;
  args: string[];
  sink: TraceSink;
  /** Trace copies of messages above this size become `truncated` events; forwarding is unaffected. */
  maxMessageBytes: number;
  /** Record the server's stderr as `stderr` lines (it is passed through either way). */
  recordStderr: boolean;
  /** The client side. Defaults to this process's stdin/stdout. */
  input?: Readable;
  output?: Writable;
  /** Where the server's stderr and our own warnings go. */
  errorOutput?: Writable;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** How long to wait for the server's stdout after it exits (a grandchild may hold the pipe). */
  drainMs?: number;
  /** How long a forwarded signal may go unheeded before SIGKILL. */
  killAfterMs?: number;
  /** Signals forwarded to the server. */
  signals?: NodeJS.Signals[];
  /**
   * The server, already started (with the same command, args and stderr choice): `record` spawns it first thing
   * and loads the rest meanwhile. Started here when not given.
   */
  started?: StartedServer;
  /** Called once this proxy passes signals on to the server (whatever passed them on before may stop then). */
  onSignalsForwarded?: (() => void) | undefined;
  /**
   * @internal What a relay forwarded before this proxy attached (src/proxy/early-relay.ts): its trace copies come first,
   * stamped when they were read. When the server is started here instead, the client's part is sent to it first.
   */
  early?: readonly EarlyChunk[];
  /** @internal Writing to the client failed before this proxy attached: recorded among the early chunks. */
  earlyWriteError?: EarlyWriteError | undefined;
}

export interface StdioProxyResult {
  /**
   * The exit code to pass on: the server's (on Windows as Windows reports it), 128+n for a signal (POSIX), 127 not
   * found, 126 not executable.
   */
  exitCode: number;
  serverExitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** The chunk a queued trace task is handed (a fault's event copies no bytes). */
const EMPTY = Buffer.alloc(0);

export const STDIO_PROXY_DEFAULTS = {
  /** Trace copies of larger messages are replaced by a `truncated` event (the message itself is forwarded). */
  maxMessageBytes: 16 * 1024 * 1024,
  drainMs: 2000,
  killAfterMs: SIGNAL_GRACE_MS,
  signals: [...FORWARDED_SIGNALS],
} as const;

/**
 * Runs `command` as a child and sits between it and the client on stdio. Raw chunks are forwarded first and
 * untouched in both directions; the trace sees copies. A full destination pauses its source, so memory stays
 * bounded under a slow reader. Resolves when the server has exited and its output is drained and forwarded.
 *
 * @example
 * const sink = new FileSink({ path: 'session.jsonl' });
 * sink.start(meta);
 * const { exitCode } = await runStdioProxy({ command: 'node', args: ['server.js'], sink, maxMessageBytes: 1 << 24, recordStderr: true });
 */
export async function runStdioProxy(options: StdioProxyOptions): Promise<StdioProxyResult> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const errorOutput = options.errorOutput ?? process.stderr;
  const drainMs = options.drainMs ?? STDIO_PROXY_DEFAULTS.drainMs;
  const killAfterMs = options.killAfterMs ?? STDIO_PROXY_DEFAULTS.killAfterMs;
  const signals = options.signals ?? STDIO_PROXY_DEFAULTS.signals;
  const { sink } = options;
  const emit = sink.append.bind(sink);
  const toServer = new PipeCapture({ dir: 'in', maxMessageBytes: options.maxMessageBytes, emit });
  const toClient = new PipeCapture({ dir: 'out', maxMessageBytes: options.maxMessageBytes, emit });

  const server =
    options.started ??
    startServer(options.command, options.args, {
      stderr: options.recordStderr ? 'pipe' : 'inherit',
      ...(options.env !== undefined ? { env: options.env } : {}),
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    });
  const failure = await server.spawned;
  const { child } = server;
  if (failure !== undefined || child === undefined) return spawnFailed(options, errorOutput, failure);
  sink.append({
    t: timestamp(server.startedAtMs),
    type: 'event',
    name: 'spawn',
    ok: true,
    pid: child.pid ?? null,
  });

  const stdin = child.stdin!;
  const stdout = child.stdout!;
  // The server going away makes writes to its stdin fail with EPIPE; that is the exit path, not an error.
  stdin.on('error', () => {});
  const writeError = (error: string, atMs?: number) =>
    sink.append({ t: timestamp(atMs), type: 'event', name: 'write_error', target: 'client', error });
  output.on('error', (err: NodeJS.ErrnoException) => writeError(err.code ?? err.message));

  // Bytes are forwarded as they are read; their trace copies follow: a small chunk's at once, a big one's (or a
  // burst's) once the event loop has forwarded the rest.
  const later = new CaptureQueue(CAPTURE_QUEUE_DEFAULTS.maxBytes, Date.now, CAPTURE_QUEUE_DEFAULTS);
  const faults = StdioFaults.open(options, {
    // A fault's event follows the trace line of the request it is about: it waits in the same queue.
    record: (record) => {
      later.push({ push: (_, atMs) => sink.append(faultEvent(record, timestamp(atMs))) }, EMPTY);
      options.onFault?.(record);
    },
    cut: () => {
      // The server side ends: the client reads the end of its input, the server is stopped.
      input.pause();
      if (output !== process.stdout) output.end();
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), killAfterMs).unref();
    },
  });
  const stderrCapture = new PipeCapture({
    dir: 'out',
    stream: 'stderr',
    maxMessageBytes: options.maxMessageBytes,
    emit,
  });
  const captureOf = { client: toServer, server: toClient, stderr: stderrCapture } as const;
  queueEarly(options, later, captureOf, (chunk) => stdin.write(chunk), writeError);
  const fromClient = new Pump(
    input,
    stdin,
    faults
      ? (chunk) => {
          later.push(toServer, chunk);
          faults.requests(chunk);
        }
      : (chunk) => later.push(toServer, chunk),
  );
  void fromClient.done.then(() => {
    later.flush();
    toServer.end();
    stdin.end();
  });
  const fromServer: Draining[] = [
    faults
      ? faults.answers(stdout, output, (chunk) => later.push(toClient, chunk))
      : new Pump(stdout, output, (chunk) => later.push(toClient, chunk)),
  ];
  if (child.stderr)
    fromServer.push(new Pump(child.stderr, errorOutput, (chunk) => later.push(stderrCapture, chunk)));
  server.release();
  // A relay that read before us paused what it read; attached now, the pumps read on.
  if (options.early !== undefined) for (const stream of [input, stdout, child.stderr]) stream?.resume();

  const forwarded = forwardSignals(child, signals, killAfterMs);
  options.onSignalsForwarded?.();
  const exit = await server.exited;
  forwarded.stop();
  faults?.disarm();

  // A grandchild may keep the server's stdout open forever; give the real output a bounded time to arrive
  // (time spent waiting on a slow client does not count).
  const drained = await drainWithin(fromServer, drainMs);
  if (!drained) {
    stdout.destroy();
    child.stderr?.destroy();
    sink.append({ t: timestamp(), type: 'event', name: 'drain_timeout', waitedMs: drainMs });
  }
  later.flush();
  toClient.end();
  stderrCapture.end();
  input.pause();
  toServer.end();

  const exitCode = serverExitCode(exit.code, exit.signal);
  sink.append({
    t: timestamp(),
    type: 'event',
    name: 'exit',
    exitCode: exit.code,
    signal: exit.signal,
    durationMs: Date.now() - server.startedAtMs,
  });
  return { exitCode, serverExitCode: exit.code, signal: exit.signal };
}

/** The server could not be started: one line on stderr, a failed `spawn` event, 127 (not found) or 126. */
function spawnFailed(
  options: StdioProxyOptions,
  errorOutput: Writable,
  failure: NodeJS.ErrnoException | undefined,
): StdioProxyResult {
  const code = failure?.code;
  const exitCode = code === 'ENOENT' ? 127 : 126;
  const why = code === 'ENOENT' ? 'command not found' : `not executable (${code ?? failure?.message})`;
  errorOutput.write(`tapedeck: cannot run '${options.command}': ${why}\n`);
  options.sink.append({
    t: timestamp(),
    type: 'event',
    name: 'spawn',
    ok: false,
    error: code ?? failure?.message ?? 'not started',
  });
  return { exitCode, serverExitCode: null, signal: null };
}

/**
 * Queues the trace copies of what a relay forwarded before this proxy attached, stamped when they were read; a
 * write error the relay met goes among its chunks by time, as it would have been recorded then. When the server
 * was started here, the client's part is sent to it first.
 */
function queueEarly(
  options: StdioProxyOptions,
  later: CaptureQueue,
  captureOf: Readonly<Record<EarlyChunk['source'], PipeCapture>>,
  toServer: (chunk: Buffer) => void,
  writeError: (error: string, atMs?: number) => void,
): void {
  let earlyError = options.earlyWriteError;
  const recordEarlyError = (before: number) => {
    if (earlyError === undefined || earlyError.atMs > before) return;
    const { error, atMs } = earlyError;
    later.push({ push: () => writeError(error, atMs) }, EMPTY, atMs);
    earlyError = undefined;
  };
  for (const { source, chunk, atMs } of options.early ?? []) {
    recordEarlyError(atMs);
    later.push(captureOf[source], chunk, atMs);
    if (source === 'client' && options.started === undefined) toServer(chunk);
  }
  recordEarlyError(Number.POSITIVE_INFINITY);
}
