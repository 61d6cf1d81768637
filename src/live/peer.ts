import { TapedeckError } from '../base/errors.js';
import type { Scheduler } from '../base/scheduler.js';
import { ANSWER_TIMEOUT_MS } from '../base/timeouts.js';
import type { TraceSink } from '../sink/sink.js';
import type { JsonObject, RpcId, RpcNotification, RpcRequest } from '../trace/jsonrpc.js';
import type { Json } from '../trace/types.js';
import type { UpstreamTimeouts, UpstreamTransport } from '../upstream/types.js';

/**
 * A live server as verify and update see it, whichever way it is reached: the LivePeer interface, the targets that
 * name a server (a command or a URL), how a request to it ends, and what both peers share (their defaults, the
 * client's answer to a server's question). The peers themselves are stdio-peer.ts and http-peer.ts; start-peer.ts
 * picks one.
 */

/** What a server→client request gets back: the `result` or `error` member of the answer. */
export type LiveAnswer = { result: Json } | { error: { code: number; message: string; data?: Json } };

/** How a request to the live server ended. */
export type LiveOutcome =
  /** `status`: the HTTP status of an error the server answered for the request as a whole (its body, with our id). */
  | { kind: 'response'; message: JsonObject; status?: number }
  | { kind: 'timeout'; ms: number }
  /** The server exited (or closed its stdout) before answering. */
  | { kind: 'exit'; exit: LiveExit }
  /** The request could not be carried (an HTTP upstream unreachable, or failing): the message says why. */
  | { kind: 'error'; message: string };

export interface LiveExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why a session without a process ended (an HTTP upstream's stream went away). */
  reason?: string;
}

/** What LiveServer needs of a child process: the shape of a Node `ChildProcess` spawned with piped stdio. */
export interface ChildLike {
  readonly pid?: number | undefined;
  readonly stdin: {
    readonly writable: boolean;
    write(chunk: Uint8Array): boolean;
    end(): unknown;
    on(event: 'error', listener: (error: Error) => void): unknown;
  };
  readonly stdout: {
    readonly readableEnded: boolean;
    readonly destroyed: boolean;
    on(event: 'data', listener: (chunk: Buffer) => void): unknown;
    once(event: 'close', listener: () => void): unknown;
  };
  /** null when stderr is inherited. */
  readonly stderr: { on(event: 'data', listener: (chunk: Buffer) => void): unknown } | null;
  once(event: 'spawn', listener: () => void): unknown;
  once(event: 'error', listener: (error: Error & { code?: string }) => void): unknown;
  once(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
  kill(signal?: NodeJS.Signals): boolean;
}

export interface SpawnOptions {
  stdio: ['pipe', 'pipe', 'pipe' | 'inherit'];
  env: Record<string, string | undefined>;
  cwd?: string;
}

/**
 * How a server process is started: Node's `child_process.spawn` fits (TypeScript needs it named `spawn as Spawn`:
 * none of its overloads is this one shape). Passed in, so that src/live imports no `node:` module and a host can
 * start servers its own way.
 */
export type Spawn = (command: string, args: string[], options: SpawnOptions) => ChildLike;

/** Every live peer's timeouts and limits; the stdio peer's own (exit, drain, line and stderr sizes) as well. */
export const LIVE_DEFAULTS = {
  requestTimeoutMs: ANSWER_TIMEOUT_MS,
  /** After stdin is closed, how long the server may take to exit on its own before SIGTERM (then SIGKILL). */
  exitGraceMs: 2000,
  killAfterMs: 2000,
  /** Once the server exited, how long its stdout may take to close (a grandchild may hold it). */
  drainMs: 1000,
  maxLineBytes: 64 * 1024 * 1024,
  /** How much of the server's stderr is kept for error messages. */
  stderrTailBytes: 4096,
} as const;

/**
 * What verify and update need of a live server, whichever way it is reached: a spawned stdio process
 * (LiveServer) or a remote Streamable HTTP / SSE endpoint (HttpLivePeer). Requests get fresh ids and an outcome,
 * never a rejection; the server's own questions go to `onRequest`.
 */
export interface LivePeer {
  /** Resolves when the session is over: the process exited, or the HTTP session closed. */
  readonly exited: Promise<LiveExit>;
  /** True once the session is over. */
  readonly done: boolean;
  /** The process id (stdio); undefined over HTTP. */
  readonly pid: number | undefined;
  /** The last few KB of the server's stderr (stdio); empty over HTTP. */
  stderrTail(): string;
  request(
    method: string,
    params: JsonObject | undefined,
    options?: { timeoutMs?: number; onSent?: (id: RpcId) => void },
  ): Promise<LiveOutcome>;
  notify(method: string, params?: JsonObject): void;
  send(message: Json, wait?: { awaitId: RpcId; timeoutMs: number }): Promise<LiveOutcome> | undefined;
  close(): Promise<LiveExit>;
}

/** A server command to spawn. */
export interface StdioTarget {
  kind: 'stdio';
  spawn: Spawn;
  command: string;
  args: readonly string[];
  env?: Record<string, string | undefined> | undefined;
  cwd?: string | undefined;
}

/** A remote server by URL. */
export interface HttpTarget {
  kind: 'http';
  url: string;
  transport?: UpstreamTransport | undefined;
  /** Sent on every request (e.g. Authorization). */
  headers?: Readonly<Record<string, string>> | undefined;
  fetch?: typeof fetch | undefined;
  timeouts?: Partial<UpstreamTimeouts> | undefined;
}

export type LiveTarget = StdioTarget | HttpTarget;

/** The hooks every live peer takes. */
export interface LivePeerHooks {
  /** Default timeout of request(); every wait has one. */
  requestTimeoutMs?: number | undefined;
  /** @internal The clock request timeouts run on: the real one, or a test's (see src/base/scheduler.ts). */
  scheduler?: Scheduler | undefined;
  /** stdio: `capture` (default) keeps the server's stderr tail and hands it to `onStderr`; `inherit` passes it on. */
  stderr?: 'capture' | 'inherit' | undefined;
  onStderr?: ((chunk: Buffer) => void) | undefined;
  /** A started sink that gets the session as `tapedeck record` would write it. The caller closes it. */
  capture?: TraceSink | undefined;
  /** The server asks the client something. Unset: every request is answered -32601 Method not found. */
  onRequest?: ((request: RpcRequest) => Promise<LiveAnswer> | LiveAnswer) | undefined;
  onNotification?: ((notification: RpcNotification) => void) | undefined;
  /** A response to no pending request. */
  onStray?: ((message: Json) => void) | undefined;
}

/** The fields of the options of verify and update that say which server: a command, or `upstream`. */
export interface LiveTargetFields {
  spawn?: Spawn | undefined;
  command?: string | undefined;
  args?: readonly string[] | undefined;
  env?: Record<string, string | undefined> | undefined;
  cwd?: string | undefined;
  /** A remote server instead of a command. */
  upstream?: Omit<HttpTarget, 'kind'> | undefined;
}

/**
 * The target the options name: `upstream` when set, else the command (with `spawn`).
 *
 * @example liveTargetOf({ upstream: { url: 'http://127.0.0.1:3001/mcp' } }) // → { kind: 'http', url: … }
 */
export function liveTargetOf(fields: LiveTargetFields): LiveTarget {
  if (fields.upstream) return { kind: 'http', ...fields.upstream };
  if (fields.spawn === undefined || fields.command === undefined) {
    throw new TapedeckError(
      'usage',
      'a live server is needed: a server command (with spawn) or an upstream URL',
    );
  }
  return {
    kind: 'stdio',
    spawn: fields.spawn,
    command: fields.command,
    args: fields.args ?? [],
    env: fields.env,
    cwd: fields.cwd,
  };
}

/** How a live server is named in messages: its URL, or the command. */
export function describeTarget(target: LiveTarget): string {
  return target.kind === 'http' ? target.url : [target.command, ...target.args].join(' ');
}

/**
 * The client's answer to a server→client request, as a JSON-RPC response: what `onRequest` gives, -32601 when
 * there is no handler, -32603 when it throws. Shared by the stdio and HTTP live peers.
 */
export async function answerServerRequest(
  request: RpcRequest,
  onRequest: ((request: RpcRequest) => Promise<LiveAnswer> | LiveAnswer) | undefined,
): Promise<Json> {
  let answer: LiveAnswer;
  if (!onRequest) {
    answer = { error: { code: -32601, message: `Method not found: ${request.method}` } };
  } else {
    try {
      answer = await onRequest(request);
    } catch (err) {
      answer = { error: { code: -32603, message: err instanceof Error ? err.message : String(err) } };
    }
  }
  return { jsonrpc: '2.0', id: request.id, ...answer } as Json;
}
