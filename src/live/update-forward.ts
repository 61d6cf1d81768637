import type { Scheduler } from '../base/scheduler.js';
import { REPLAY_ERROR_CODES } from '../replay/engine/codes.js';
import { errorResponse } from '../replay/engine/rewrite.js';
import { timestamp } from '../trace/encode.js';
import {
  cancelledRequestId,
  idKey,
  isObject,
  type JsonObject,
  type RpcId,
  type RpcNotification,
  type RpcRequest,
} from '../trace/jsonrpc.js';
import type { EventLine, Json, MessageLine } from '../trace/types.js';
import type { LiveAnswer, LiveExit, LivePeer, LiveTarget } from './peer.js';
import { startLivePeer } from './start-peer.js';

/**
 * The live side of `run --mode update` (see update.ts): the server brought up on the first miss — with the live
 * client's own `initialize` and `notifications/initialized` — the misses forwarded to it, the answers and the
 * server's own notifications and requests relayed to the client, and every line of that traffic kept, as the client
 * saw it, for the cassette.
 */

/** What the live side tells about itself. */
export type ForwardEvent =
  | { kind: 'live-started'; pid: number | undefined }
  | { kind: 'forwarded'; method: string; id: RpcId }
  | { kind: 'forward-failed'; method: string; message: string };

/** A line to append to the cassette. */
export type UpdateLine = Omit<MessageLine, 'seq'> | Omit<EventLine, 'seq'>;

export interface ForwarderOptions {
  target: LiveTarget;
  /** How long a forwarded request may wait for the live server. */
  requestTimeoutMs: number;
  /** How long a relayed server→client request may wait for the client. */
  answerTimeoutMs: number;
  scheduler: Scheduler;
  emit: (event: ForwardEvent) => void;
  /** Sends a message to the client. */
  send: (message: Json) => void;
}

/**
 * @example
 * const live = new MissForwarder({ target, requestTimeoutMs: 30_000, answerTimeoutMs: 30_000, scheduler, emit, send });
 * void live.forward(request, raw, 'no recorded answer'); // brings the server up, answers the client
 */
export class MissForwarder {
  /** The new traffic, in order. */
  readonly lines: UpdateLine[] = [];
  /** Requests the live server answered. */
  forwarded = 0;
  /** Requests that missed and got no live answer. */
  failed = 0;
  /** The client's `initialize`, for the live server's own handshake. */
  clientInit: RpcRequest | undefined;
  /** Forwarded requests still waiting for the live answer: left out of the cassette if the session ends first. */
  private readonly open = new Set<Omit<MessageLine, 'seq'>>();
  /** Server→client requests relayed from the live server, waiting for the client's answer. */
  private readonly relays = new Map<string, (answer: JsonObject | undefined) => void>();
  /** Client request id key → the id it was forwarded with (for cancellations). */
  private readonly forwardedIds = new Map<string, RpcId>();
  private sawInitialized = false;
  private initializedSent = false;
  private live: Promise<LivePeer | string> | undefined;
  private liveServer: LivePeer | undefined;
  private broughtUp = false;
  private relayId = 0;
  private inflight = 0;
  private eof = false;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(private readonly options: ForwarderOptions) {}

  /** True once a miss asked for the live server (whether or not it came up). */
  get started(): boolean {
    return this.live !== undefined;
  }

  /** Keeps a line of the new traffic; returns it. */
  record(dir: 'in' | 'out', raw: Json): Omit<MessageLine, 'seq'> {
    const line = { t: timestamp(), dir, raw: structuredClone(raw) };
    this.lines.push(line);
    return line;
  }

  /** Hands a client answer to the relayed request it answers; false when it answers none. */
  answerRelay(id: RpcId, answer: JsonObject): boolean {
    const relay = this.relays.get(idKey(id));
    if (relay === undefined) return false;
    relay(answer);
    return true;
  }

  /** A notification from the client: the live server hears what concerns it. */
  onClientNotification(notification: RpcNotification, raw: Json): void {
    if (notification.method === 'notifications/initialized') {
      this.sawInitialized = true;
      // Sent in the bring-up when it came first; forwarded when the client's initialize was itself forwarded.
      void this.live?.then((server) => {
        if (typeof server !== 'string') this.sendInitialized(server);
      });
      return;
    }
    if (!this.live) return;
    const cancelled = cancelledRequestId(notification);
    if (cancelled !== undefined) {
      // Cancelling a replayed request is the replay server's business; a forwarded one's is the live server's.
      const target = this.forwardedIds.get(idKey(cancelled));
      if (target === undefined) return;
      this.record('in', raw);
      void this.live.then((server) => {
        if (typeof server !== 'string')
          server.notify(notification.method, { ...(notification.params ?? {}), requestId: target });
      });
      return;
    }
    void this.live.then((server) => {
      if (typeof server !== 'string') server.notify(notification.method, notification.params);
    });
  }

  /** Forwards a request replay missed, and answers the client with the live answer (or the miss, and why). */
  async forward(request: RpcRequest, raw: JsonObject, missMessage: string): Promise<void> {
    this.inflight++;
    try {
      const server = await this.bringUp(request);
      if (typeof server === 'string') return this.fail(request, `${missMessage}; ${server}`, server);
      this.options.emit({ kind: 'forwarded', method: request.method, id: request.id });
      const line = this.record('in', raw);
      this.open.add(line);
      const outcome = await server.request(request.method, request.params, {
        onSent: (id) => this.forwardedIds.set(idKey(request.id), id),
      });
      this.forwardedIds.delete(idKey(request.id));
      this.open.delete(line);
      if (outcome.kind === 'response') {
        this.forwarded++;
        const answer = { ...outcome.message, id: request.id };
        this.options.send(answer);
        this.record('out', answer);
        return;
      }
      // Nothing usable to keep: the request stays out of the cassette.
      this.lines.splice(this.lines.indexOf(line), 1);
      const why =
        outcome.kind === 'timeout'
          ? `the live server did not answer within ${outcome.ms} ms`
          : outcome.kind === 'error'
            ? outcome.message
            : outcome.exit.reason !== undefined
              ? `the live server went away (${outcome.exit.reason}) before answering`
              : `the live server exited (code ${outcome.exit.code}) before answering`;
      this.fail(request, `${missMessage}; ${why}`, why);
    } finally {
      if (--this.inflight === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** Resolves once no forwarded request is in flight. */
  idle(): Promise<void> {
    return this.inflight === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** The client is gone: nobody is left to answer the relayed requests, which end now. */
  endOfInput(): void {
    this.eof = true;
    for (const relay of [...this.relays.values()]) relay(undefined);
  }

  /** Stops the live server, if one was started. */
  async close(): Promise<LiveExit | undefined> {
    return this.live ? await this.liveServer?.close() : undefined;
  }

  /** The lines for the cassette: none while only events were added (an event alone is no reason to rewrite it). */
  keptLines(): UpdateLine[] {
    const kept = this.lines.filter((line) => !(line.type !== 'event' && this.open.has(line)));
    return kept.some((line) => line.type !== 'event') ? kept : [];
  }

  private fail(request: RpcRequest, answer: string, why: string): void {
    this.failed++;
    this.options.emit({ kind: 'forward-failed', method: request.method, message: why });
    this.options.send(errorResponse(request.id, REPLAY_ERROR_CODES.miss, answer));
  }

  private sendInitialized(server: LivePeer): void {
    if (this.initializedSent) return;
    this.initializedSent = true;
    server.notify('notifications/initialized');
  }

  /** Starts the live server once; `first` is the request that missed (an `initialize` is then forwarded as is). */
  private bringUp(first: RpcRequest): Promise<LivePeer | string> {
    this.live ??= this.start(first);
    return this.live;
  }

  private async start(first: RpcRequest): Promise<LivePeer | string> {
    const { target, requestTimeoutMs, scheduler } = this.options;
    let server: LivePeer;
    try {
      server = await startLivePeer(target, {
        stderr: 'inherit',
        requestTimeoutMs,
        scheduler,
        onRequest: (request) => this.relayRequest(request),
        onNotification: (notification) => this.relayNotification(notification),
      });
    } catch (err) {
      return `the live server could not be started: ${err instanceof Error ? err.message : String(err)}`;
    }
    this.liveServer = server;
    this.options.emit({ kind: 'live-started', pid: server.pid });
    // The client went through the handshake with the cassette; the live server needs its own.
    if (this.clientInit && first.method !== 'initialize') {
      const outcome = await server.request('initialize', this.clientInit.params);
      if (outcome.kind !== 'response' || !isObject(outcome.message.result)) {
        const why =
          outcome.kind === 'timeout'
            ? `no answer to initialize within ${outcome.ms} ms`
            : outcome.kind === 'exit'
              ? `it exited (code ${outcome.exit.code}) during initialize`
              : outcome.kind === 'error'
                ? outcome.message
                : `initialize failed: ${JSON.stringify(outcome.message.error ?? null)}`;
        void server.close();
        return `the live server could not be brought up: ${why}`;
      }
      if (this.sawInitialized) this.sendInitialized(server);
    }
    this.broughtUp = true;
    return server;
  }

  private relayNotification(notification: RpcNotification): void {
    // The client had the session's startup notifications from the cassette; the bring-up's own are not news.
    if (!this.broughtUp) return;
    const message: JsonObject = { jsonrpc: '2.0', method: notification.method };
    if (notification.params) message.params = notification.params;
    this.options.send(message);
    this.record('out', message);
  }

  private relayRequest(request: RpcRequest): Promise<LiveAnswer> {
    const { scheduler, answerTimeoutMs } = this.options;
    // Its own id space: the replay server numbers its server→client requests 0, 1, 2 …
    const id = `tapedeck-live-${this.relayId++}`;
    const message: JsonObject = { jsonrpc: '2.0', id, method: request.method };
    if (request.params) message.params = request.params;
    const recordIt = this.broughtUp;
    return new Promise((resolve) => {
      const settle = (answer: JsonObject | undefined) => {
        scheduler.clearTimeout(timer);
        this.relays.delete(idKey(id));
        if (!answer) {
          resolve({
            error: {
              code: -32603,
              message: `the client did not answer ${request.method} within ${answerTimeoutMs} ms`,
            },
          });
          return;
        }
        if (recordIt) this.record('in', answer);
        if ('error' in answer && isObject(answer.error)) resolve({ error: answer.error as never });
        else resolve({ result: answer.result ?? null });
      };
      const timer = scheduler.setTimeout(() => settle(undefined), this.eof ? 0 : answerTimeoutMs);
      this.relays.set(idKey(id), settle);
      this.options.send(message);
      if (recordIt) this.record('out', message);
    });
  }
}
