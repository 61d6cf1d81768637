import { TapedeckError } from '../errors.js';
import type { TraceSink } from '../sink/sink.js';
import type { JsonObject, RpcId, RpcNotification, RpcRequest } from '../trace/jsonrpc.js';
import type { Json } from '../trace/types.js';
import type { UpstreamTimeouts, UpstreamTransport } from '../upstream/types.js';
import { type LiveAnswer, type LiveExit, type LiveOutcome, LiveServer, type Spawn } from './live.js';
import { HttpLivePeer } from './live-http.js';

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

/**
 * Starts (stdio) or connects to (HTTP) a live server. Fails with a one-line TapedeckError('input') when the
 * command cannot be run or the URL cannot be reached.
 *
 * @example const peer = await startLivePeer({ kind: 'http', url: 'http://127.0.0.1:3001/mcp' }, { requestTimeoutMs: 5000 });
 */
export function startLivePeer(target: LiveTarget, hooks: LivePeerHooks): Promise<LivePeer> {
  if (target.kind === 'http') return HttpLivePeer.start(target, hooks);
  return LiveServer.start({ ...hooks, ...target });
}

/** How a live server is named in messages: its URL, or the command. */
export function describeTarget(target: LiveTarget): string {
  return target.kind === 'http' ? target.url : [target.command, ...target.args].join(' ');
}
