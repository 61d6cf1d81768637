import { TapedeckError } from '../base/errors.js';
import { realScheduler } from '../base/scheduler.js';
import { timestamp } from '../trace/encode.js';
import {
  classifyMessage,
  idKey,
  isObject,
  type JsonObject,
  type RpcId,
  type RpcRequest,
} from '../trace/jsonrpc.js';
import type { Json } from '../trace/types.js';
import { upstreamCapture } from '../upstream/capture.js';
import { createUpstream } from '../upstream/index.js';
import type { Upstream, UpstreamMessage } from '../upstream/types.js';
import {
  answerServerRequest,
  type HttpTarget,
  LIVE_DEFAULTS,
  type LiveExit,
  type LiveOutcome,
  type LivePeer,
  type LivePeerHooks,
} from './peer.js';

/**
 * The client side of a live remote MCP server over Streamable HTTP or legacy SSE, for `verify --upstream` and
 * `run --mode update --upstream`. It speaks through the raw upstream client, so what is sent and what comes back
 * is the wire; the server's own questions (sampling, elicitation, roots), which arrive on SSE streams, are
 * answered by POSTing the answer. A request that the upstream could not carry resolves as an `error` outcome naming
 * the URL and the cause.
 *
 * @example
 * const peer = await HttpLivePeer.start({ kind: 'http', url: 'http://127.0.0.1:3001/mcp' }, { requestTimeoutMs: 5000 });
 * const init = await peer.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo });
 * await peer.close();
 */
export class HttpLivePeer implements LivePeer {
  readonly exited: Promise<LiveExit>;
  readonly pid = undefined;
  private readonly pending = new Map<string, (outcome: LiveOutcome) => void>();
  /** Error bodies with no id (`400 {"error":…,"id":null}`), by the HTTP stream that carried them. */
  private readonly refusals = new Map<string, JsonObject>();
  private readonly upstream: Upstream;
  private nextId = 0;
  private exit: LiveExit | undefined;
  private finish!: (exit: LiveExit) => void;
  private closing: Promise<LiveExit> | undefined;

  private constructor(
    private readonly target: HttpTarget,
    private readonly hooks: LivePeerHooks,
  ) {
    const capture = hooks.capture ? upstreamCapture(hooks.capture.append.bind(hooks.capture)) : undefined;
    const timeoutMs = hooks.requestTimeoutMs ?? LIVE_DEFAULTS.requestTimeoutMs;
    this.upstream = createUpstream({
      url: target.url,
      transport: target.transport,
      headers: target.headers,
      fetch: target.fetch,
      timeouts: { headersMs: timeoutMs, answerMs: timeoutMs, ...target.timeouts },
      onMessage: (message) => {
        capture?.received(message);
        this.onMessage(message);
      },
      onSent: capture?.sent,
      onEnvelope: capture?.envelope,
      onEvent: capture?.event,
    });
    this.exited = new Promise((resolve) => {
      this.finish = (exit) => {
        if (this.exit) return;
        this.exit = exit;
        for (const [key, settle] of this.pending) {
          this.pending.delete(key);
          settle({ kind: 'exit', exit });
        }
        resolve(exit);
      };
    });
    void this.upstream.closed.then((reason) => this.finish({ code: null, signal: null, reason }));
  }

  /**
   * Connects (legacy SSE opens its stream here; Streamable HTTP connects with the first request). Fails with a
   * one-line TapedeckError('input') when the URL cannot be reached.
   */
  static async start(target: HttpTarget, hooks: LivePeerHooks): Promise<HttpLivePeer> {
    const peer = new HttpLivePeer(target, hooks);
    try {
      await peer.upstream.start();
    } catch (err) {
      await peer.upstream.close();
      throw new TapedeckError('input', (err as Error).message, { cause: err });
    }
    return peer;
  }

  get done(): boolean {
    return this.exit !== undefined;
  }

  stderrTail(): string {
    return '';
  }

  request(
    method: string,
    params: JsonObject | undefined,
    options: { timeoutMs?: number; onSent?: (id: RpcId) => void } = {},
  ): Promise<LiveOutcome> {
    const id = this.nextId++;
    options.onSent?.(id);
    const message: JsonObject = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    return this.send(message, {
      awaitId: id,
      timeoutMs: options.timeoutMs ?? this.hooks.requestTimeoutMs ?? LIVE_DEFAULTS.requestTimeoutMs,
    }) as Promise<LiveOutcome>;
  }

  notify(method: string, params?: JsonObject): void {
    void this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  send(message: Json, wait?: { awaitId: RpcId; timeoutMs: number }): Promise<LiveOutcome> | undefined {
    if (this.exit) {
      return wait ? Promise.resolve({ kind: 'exit', exit: this.exit }) : undefined;
    }
    let outcome: Promise<LiveOutcome> | undefined;
    if (wait) {
      const key = idKey(wait.awaitId);
      const clock = this.hooks.scheduler ?? realScheduler;
      outcome = new Promise<LiveOutcome>((resolve) => {
        const timer = clock.setTimeout(() => {
          this.pending.delete(key);
          resolve({ kind: 'timeout', ms: wait.timeoutMs });
        }, wait.timeoutMs);
        this.pending.set(key, (value) => {
          clock.clearTimeout(timer);
          resolve(value);
        });
      });
    }
    const settle = (id: RpcId, value: LiveOutcome) => {
      const pending = this.pending.get(idKey(id));
      this.pending.delete(idKey(id));
      pending?.(value);
    };
    this.upstream.send(message).then(
      (result) => {
        // A server that refuses a POST as a whole answers an HTTP error with a JSON-RPC error body and no id
        // (400 for a second initialize, 404 for an unknown session): that is its answer to what the POST held.
        const refusal = this.refusals.get(result.stream);
        this.refusals.delete(result.stream);
        for (const id of result.unanswered) {
          settle(
            id,
            refusal
              ? { kind: 'response', message: { ...refusal, id }, status: result.status }
              : {
                  kind: 'error',
                  message: `the upstream ${this.target.url} ended its answer stream without a response`,
                },
          );
        }
      },
      (err: Error) => {
        if (wait) settle(wait.awaitId, { kind: 'error', message: err.message });
        else
          this.hooks.capture?.append({
            t: timestamp(),
            type: 'event',
            name: 'upstream_error',
            message: err.message,
          });
      },
    );
    return outcome;
  }

  /** Ends the session (DELETE); requests still waiting resolve as `exit`. */
  close(): Promise<LiveExit> {
    this.closing ??= (async () => {
      await this.upstream.close();
      this.finish({ code: 0, signal: null });
      return this.exited;
    })();
    return this.closing;
  }

  private onMessage(message: UpstreamMessage): void {
    const parsed = classifyMessage(message.raw);
    const items = parsed.kind === 'batch' ? parsed.items : [parsed];
    for (const [index, item] of items.entries()) {
      const raw = Array.isArray(message.raw) ? (message.raw[index] as Json) : message.raw;
      if (item.kind === 'response') {
        const pending = item.id === null ? undefined : this.pending.get(idKey(item.id));
        if (pending && item.id !== null) {
          this.pending.delete(idKey(item.id));
          pending({ kind: 'response', message: raw as JsonObject });
        } else if (item.id === null && isObject(raw) && 'error' in raw)
          this.refusals.set(message.stream, raw);
        else this.hooks.onStray?.(raw);
      } else if (item.kind === 'notification') this.hooks.onNotification?.(item);
      else if (item.kind === 'request') void this.answer(item);
      else this.hooks.onStray?.(raw);
    }
  }

  private async answer(request: RpcRequest): Promise<void> {
    void this.send(await answerServerRequest(request, this.hooks.onRequest));
  }
}
