import { TapedeckError } from '../base/errors.js';
import { delay, realScheduler } from '../base/scheduler.js';
import { type FramedLine, LineFramer } from '../capture/line-framer.js';
import { PipeCapture } from '../capture/pipe-capture.js';
import type { TraceSink } from '../sink/sink.js';
import { timestamp } from '../trace/encode.js';
import { classifyMessage, idKey, type JsonObject, type RpcId, type RpcRequest } from '../trace/jsonrpc.js';
import type { Json } from '../trace/types.js';
import {
  answerServerRequest,
  type ChildLike,
  LIVE_DEFAULTS,
  type LiveExit,
  type LiveOutcome,
  type LivePeer,
  type LivePeerHooks,
  type Spawn,
} from './peer.js';

/**
 * The client side of a live stdio MCP server, for `verify` and `run --mode update`: spawn it, frame its stdout into
 * JSON-RPC messages, send requests and wait for their answers — every wait with a timeout — and answer what the
 * server asks of the client (sampling, elicitation, roots) through a callback. Non-JSON lines are skipped, as the
 * SDK's own stdio reader does.
 */

/**
 * A live stdio server: how to start it, plus the hooks every live peer takes (see LivePeerHooks: the sink
 * `capture` also gets non-JSON lines, stderr and `spawn` / `exit` events here).
 */
export interface LiveServerOptions extends LivePeerHooks {
  /** Starts the process: Node's `child_process.spawn` (the CLI passes `nodeSpawn`). */
  spawn: Spawn;
  command: string;
  args: readonly string[];
  env?: Record<string, string | undefined> | undefined;
  cwd?: string | undefined;
  /** A stdout line that is not JSON (a banner, a stray log). */
  onSkipped?: ((text: string) => void) | undefined;
  maxLineBytes?: number | undefined;
}

interface Pending {
  settle: (outcome: LiveOutcome) => void;
}

/**
 * A spawned stdio MCP server we are the client of.
 *
 * @example
 * const server = await LiveServer.start({ command: 'node', args: ['server.js'] });
 * const init = await server.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo });
 * server.notify('notifications/initialized');
 * const tools = await server.request('tools/list', undefined, { timeoutMs: 5000 });
 * await server.close();
 */
export class LiveServer implements LivePeer {
  /** Resolves when the process has exited and its stdout is closed (or `drainMs` passed). */
  readonly exited: Promise<LiveExit>;
  private readonly pending = new Map<string, Pending>();
  private readonly framer: LineFramer;
  private nextId = 0;
  private exit: LiveExit | undefined;
  private tail = '';
  private closing: Promise<LiveExit> | undefined;
  private readonly capture: Capture | undefined;
  private readonly startedMs = Date.now();

  private constructor(
    private readonly child: ChildLike,
    private readonly options: LiveServerOptions,
  ) {
    this.framer = new LineFramer({
      maxLineBytes: options.maxLineBytes ?? LIVE_DEFAULTS.maxLineBytes,
      onLine: (line) => this.onLine(line),
    });
    this.capture = options.capture ? captureTo(options.capture) : undefined;
    this.capture?.event('spawn', { ok: true, pid: child.pid ?? null });
    child.stdout.on('data', (chunk: Buffer) => {
      this.capture?.out.push(chunk);
      this.framer.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.tail = (this.tail + chunk.toString('utf8')).slice(-LIVE_DEFAULTS.stderrTailBytes);
      this.capture?.stderr.push(chunk);
      options.onStderr?.(chunk);
    });
    // The server going away makes our writes fail with EPIPE; its exit is reported through `exited` instead.
    child.stdin.on('error', () => {});
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        const exit = { code, signal };
        const stdoutClosed = new Promise<void>((done) => {
          if (child.stdout.readableEnded || child.stdout.destroyed) done();
          else child.stdout.once('close', () => done());
        });
        void Promise.race([stdoutClosed, delay(LIVE_DEFAULTS.drainMs)]).then(() => {
          this.framer.end();
          this.exit = exit;
          this.capture?.end(exit, Date.now() - this.startedMs);
          for (const [key, pending] of this.pending) {
            this.pending.delete(key);
            pending.settle({ kind: 'exit', exit });
          }
          resolve(exit);
        });
      });
    });
  }

  /**
   * Spawns the server. Fails with a one-line TapedeckError('input') when the command cannot be run.
   *
   * @example const server = await LiveServer.start({ command: 'npx', args: ['-y', 'my-server'] });
   */
  static async start(options: LiveServerOptions): Promise<LiveServer> {
    let child: ChildLike;
    try {
      child = options.spawn(options.command, [...options.args], {
        stdio: ['pipe', 'pipe', options.stderr === 'inherit' ? 'inherit' : 'pipe'],
        env: options.env ?? process.env,
        ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      });
    } catch (err) {
      // Invalid arguments (an empty command, a NUL byte) throw instead of emitting 'error'.
      throw new TapedeckError(
        'input',
        `cannot run the server command '${options.command}': ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
    const failed = await new Promise<(Error & { code?: string }) | undefined>((resolve) => {
      child.once('spawn', () => resolve(undefined));
      child.once('error', (err) => resolve(err));
    });
    if (failed) {
      const why =
        failed.code === 'ENOENT' ? 'command not found' : `not executable (${failed.code ?? failed.message})`;
      throw new TapedeckError(
        'input',
        `cannot run the server command '${options.command}': ${why}; check the command after '--'`,
        { cause: failed },
      );
    }
    return new LiveServer(child, options);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The last few KB the server wrote to stderr (with `stderr: 'capture'`). */
  stderrTail(): string {
    return this.tail;
  }

  /** True once the server has exited. */
  get done(): boolean {
    return this.exit !== undefined;
  }

  /**
   * Sends a request with a fresh id and waits for its answer, at most `timeoutMs`. Never rejects.
   * `onSent` hears the id the request went out with (to map ids of messages that refer to it).
   */
  request(
    method: string,
    params: JsonObject | undefined,
    options: { timeoutMs?: number; onSent?: (id: RpcId) => void } = {},
  ): Promise<LiveOutcome> {
    const id = this.nextId++;
    options.onSent?.(id);
    return this.send(
      params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
      {
        awaitId: id,
        timeoutMs: options.timeoutMs ?? this.options.requestTimeoutMs ?? LIVE_DEFAULTS.requestTimeoutMs,
      },
    ) as Promise<LiveOutcome>;
  }

  /** Sends a notification. */
  notify(method: string, params?: JsonObject): void {
    void this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /**
   * Sends any message as is; with `awaitId`, resolves to the answer to that id (the caller chose the id).
   *
   * @example await server.send({ jsonrpc: '2.0', id: 'a', method: 'ping' }, { awaitId: 'a', timeoutMs: 1000 })
   */
  send(message: Json, wait?: { awaitId: RpcId; timeoutMs: number }): Promise<LiveOutcome> | undefined {
    const text = Buffer.from(`${JSON.stringify(message)}\n`);
    if (!wait) {
      this.write(text);
      return undefined;
    }
    if (this.exit) return Promise.resolve({ kind: 'exit', exit: this.exit });
    const key = idKey(wait.awaitId);
    const clock = this.options.scheduler ?? realScheduler;
    const outcome = new Promise<LiveOutcome>((resolve) => {
      const timer = clock.setTimeout(() => {
        this.pending.delete(key);
        resolve({ kind: 'timeout', ms: wait.timeoutMs });
      }, wait.timeoutMs);
      this.pending.set(key, {
        settle: (value) => {
          clock.clearTimeout(timer);
          resolve(value);
        },
      });
    });
    this.write(text);
    return outcome;
  }

  /**
   * Ends the session: closes the server's stdin, gives it `exitGraceMs` to exit, then SIGTERM, then SIGKILL.
   * Requests still waiting resolve as `exit`.
   */
  close(): Promise<LiveExit> {
    this.closing ??= (async () => {
      if (!this.exit) {
        this.child.stdin.end();
        const graceful = await Promise.race([
          this.exited,
          delay(LIVE_DEFAULTS.exitGraceMs).then(() => false as const),
        ]);
        if (!graceful) {
          this.child.kill('SIGTERM');
          const terminated = await Promise.race([
            this.exited,
            delay(LIVE_DEFAULTS.killAfterMs).then(() => false as const),
          ]);
          if (!terminated) this.child.kill('SIGKILL');
        }
      }
      return this.exited;
    })();
    return this.closing;
  }

  private write(bytes: Buffer): void {
    if (this.exit || !this.child.stdin.writable) return;
    this.capture?.in.push(bytes);
    this.child.stdin.write(bytes);
  }

  private onLine(line: FramedLine): void {
    if (line.kind === 'oversize') {
      this.options.onSkipped?.(`a ${line.size}-byte line (too long to parse)`);
      return;
    }
    const text = line.bytes.toString('utf8', 0, line.crlf ? line.bytes.length - 1 : line.bytes.length);
    if (text.trim() === '') return;
    let raw: Json;
    try {
      raw = JSON.parse(text) as Json;
    } catch {
      this.options.onSkipped?.(text);
      return;
    }
    for (const item of Array.isArray(raw) ? raw : [raw]) this.onMessage(item);
  }

  private onMessage(raw: Json): void {
    const message = classifyMessage(raw);
    if (message.kind === 'response') {
      const pending = message.id === null ? undefined : this.pending.get(idKey(message.id));
      if (pending && message.id !== null) {
        this.pending.delete(idKey(message.id));
        pending.settle({ kind: 'response', message: raw as JsonObject });
      } else this.options.onStray?.(raw);
      return;
    }
    if (message.kind === 'notification') {
      this.options.onNotification?.(message);
      return;
    }
    if (message.kind === 'request') {
      void this.answer(message);
      return;
    }
    this.options.onStray?.(raw);
  }

  private async answer(request: RpcRequest): Promise<void> {
    void this.send(await answerServerRequest(request, this.options.onRequest));
  }
}

type Capture = ReturnType<typeof captureTo>;

/** The session as trace lines, made from copies of the bytes on the pipes (as the recording proxy makes them). */
function captureTo(sink: TraceSink) {
  const emit = sink.append.bind(sink);
  const maxMessageBytes = LIVE_DEFAULTS.maxLineBytes;
  const event = (name: string, fields: Record<string, Json>) =>
    emit({ t: timestamp(), type: 'event', name, ...fields });
  const stderr = new PipeCapture({ dir: 'out', stream: 'stderr', maxMessageBytes, emit });
  const toServer = new PipeCapture({ dir: 'in', maxMessageBytes, emit });
  const fromServer = new PipeCapture({ dir: 'out', maxMessageBytes, emit });
  return {
    in: toServer,
    out: fromServer,
    stderr,
    event,
    end(exit: LiveExit, durationMs: number) {
      toServer.end();
      fromServer.end();
      stderr.end();
      event('exit', { exitCode: exit.code, signal: exit.signal, durationMs });
    },
  };
}
