import { realScheduler } from '../../../base/scheduler.js';
import type { FaultOptions } from '../../../faults/options.js';
import { armTimedFaults } from '../../../faults/timed.js';
import { idKey, isObject, type JsonObject, type RpcId } from '../../../trace/jsonrpc.js';
import type { Json } from '../../../trace/types.js';
import type { Cassette } from '../../cassette/types.js';
import { ReplayEngine } from '../../engine/engine.js';
import { withFallbacks } from '../../engine/fallback.js';
import { type FaultableChannel, replayFaultPlan, withFaults } from '../../engine/faults.js';
import type { ReplayOptions } from '../../options.js';
import type { HttpServeEvent } from './events.js';
import type { ContextStore } from './http-types.js';
import { subscriptionOf, tagIncoming, untagId, untagOutgoing } from './ids.js';
import type { Reply } from './reply.js';
import type { LiveSession } from './session.js';
import type { Delivery } from './sse.js';

/**
 * How live sessions share a cassette: one engine serves them all. A recording of an HTTP server holds several
 * MCP sessions, and a live client may open several too; with one engine there is one matcher, so identical
 * requests from different sessions are served in recorded order, `replayed N/M` and the unused exchanges cover
 * the whole run, and the recorded client notifications (each session's `notifications/initialized` …) and the
 * unsolicited messages anchored to them are handed out in recorded order as well.
 *
 * Two things keep sessions apart. Ids: every SDK client numbers its requests from 0, so request ids (and the id
 * a `notifications/cancelled` names) are tagged with their session on the way in and restored on the way out
 * (ids.ts). Destinations: the engine's sends carry no address, so each client message is handed to the engine
 * inside an async context naming its session and the POST it came on; whatever the engine sends while playing
 * that message's timeline — synchronously, after a recorded delay, or after the client answered a server→client
 * request — runs in that context, and goes down that POST's stream, or the session's GET stream once the POST was
 * answered (or when the message has nothing to do with a request).
 */

/** Where a client message came from: its session, and the POST reply awaiting its answers (if any). */
export interface Origin {
  session: LiveSession;
  reply: Reply | undefined;
  /** The scope its ids are tagged with: the session's tag, or for sessionless requests the POST's stream id. */
  tag: string;
}

export class ReplayHub {
  readonly engine: ReplayEngine;
  private readonly handlers: ((message: Json) => void)[] = [];
  private started = false;
  private disarm: () => void = () => {};
  /** Faults are injected: replies hold their heads a turn (see ReplyOptions.deferHead). */
  readonly faulty: boolean;

  /**
   * `dropConnections` cuts every open connection: what a disconnect fault that names no request (a timed one)
   * does.
   */
  constructor(
    cassette: Cassette,
    options: ReplayOptions & FaultOptions,
    private readonly context: ContextStore<Origin>,
    private readonly emit: (event: HttpServeEvent) => void,
    private readonly dropConnections: () => void = () => {},
  ) {
    const { faults, seed, ...engineOptions } = options;
    const scheduler = engineOptions.scheduler ?? realScheduler;
    const plan = replayFaultPlan(cassette, { faults, seed }, scheduler);
    this.faulty = plan !== undefined;
    const channel: FaultableChannel = {
      send: (message) => this.route(message),
      onMessage: (handler) => {
        this.handlers.push(handler);
      },
      sendText: (message, text) => this.route(message, { text }),
      sendSlowly: (message, rate) => this.route(message, { rate }),
      disconnect: () => this.disconnect(),
    };
    const faulted = plan
      ? withFaults(channel, plan, {
          scheduler,
          onFault: (fault) => this.engine.injected(fault),
          liveId: (id) => untagId(id)?.id ?? id,
          wireForm: untagOutgoing,
        })
      : channel;
    const fallbacks = withFallbacks(faulted, cassette, (fallback) => emit({ kind: 'fallback', fallback }));
    // Each live session has its own handshake: its protocol version, the capabilities its client declared.
    const clientOf = () => this.context.getStore()?.session;
    this.engine = new ReplayEngine(cassette, fallbacks, { ...engineOptions, clientOf });
    this.engine.onEvent(emit);
    if (plan)
      this.disarm = armTimedFaults(
        plan,
        (fault) => {
          this.engine.injected(fault);
          this.dropConnections();
        },
        scheduler,
      );
  }

  /**
   * Hands the client messages of one POST (the items of a batch, or one message) to the engine, in order. Every
   * request is registered with the POST's reply first, so that a reply answered at once does not finish before
   * its last request arrived. `cancelTag` finds the scope of the request a sessionless `notifications/cancelled`
   * names.
   */
  receive(origin: Origin, messages: readonly JsonObject[], cancelTag?: (id: RpcId) => string): void {
    const tagged = messages.map((message) => tagIncoming(message, origin.tag, cancelTag));
    for (const message of tagged) {
      if (typeof message.method !== 'string' || typeof message.id !== 'string') continue;
      origin.reply?.expect(idKey(message.id));
      if (message.method === 'initialize') origin.session.initKey = idKey(message.id);
    }
    // What the recording sent before any client message goes to the first live session.
    if (!this.started) {
      this.started = true;
      this.context.run({ ...origin, reply: undefined }, () => this.engine.start());
    }
    for (const message of tagged) {
      this.context.run(origin, () => {
        for (const handler of this.handlers) handler(message);
      });
      this.settleCancel(origin, message);
    }
  }

  close(): void {
    this.disarm();
    this.engine.close();
  }

  /**
   * An injected disconnect: the connection the current request's answer would go out on is cut — its POST, or
   * for legacy SSE the session's stream; outside any request (a timed fault), every connection.
   */
  private disconnect(): void {
    const origin = this.context.getStore();
    if (origin === undefined) this.dropConnections();
    else if (origin.reply) origin.reply.destroy();
    else origin.session.disconnect();
  }

  /** A cancelled request gets no response: its reply stops waiting for one. */
  private settleCancel(origin: Origin, message: JsonObject): void {
    if (message.method !== 'notifications/cancelled' || !isObject(message.params)) return;
    const id = message.params.requestId;
    if (typeof id !== 'string') return;
    origin.session.replyHolding(idKey(id))?.drop(idKey(id));
  }

  private route(raw: Json, how?: Delivery): void {
    const origin = this.context.getStore();
    if (!isObject(raw)) return;
    if (!origin) {
      this.emit({ kind: 'dropped', reason: 'sent outside any live session', message: raw });
      return;
    }
    const { session, reply } = origin;
    const message = untagOutgoing(raw);
    const isResponse = typeof raw.method !== 'string' && ('result' in raw || 'error' in raw);
    if (isResponse) {
      const key = typeof raw.id === 'string' || typeof raw.id === 'number' ? idKey(raw.id) : undefined;
      if (key !== undefined && key === session.initKey) this.settleVersion(session, raw);
      const target = key === undefined ? undefined : reply?.holds(key) ? reply : session.replyHolding(key);
      if (target && key !== undefined) target.respond(key, message, how);
      else session.push(message, how);
      return;
    }
    // A 2026-era subscription's notifications go down the stream of its `subscriptions/listen` request.
    const subscription = subscriptionOf(raw);
    const listen = subscription === undefined ? undefined : session.replyHolding(idKey(subscription));
    if (listen?.push(message)) return;
    if (reply?.push(message)) return;
    session.push(message);
  }

  /** The protocol version the replayed initialize answer names is the session's (it decides batches). */
  private settleVersion(session: LiveSession, response: JsonObject): void {
    session.initKey = undefined;
    const result = response.result;
    if (isObject(result) && typeof result.protocolVersion === 'string')
      session.protocolVersion = result.protocolVersion;
  }
}
