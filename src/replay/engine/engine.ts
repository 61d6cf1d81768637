import type { FaultRecord } from '../../faults/records.js';
import { describeRequest } from '../../trace/describe.js';
import {
  cancelledRequestId,
  classifyMessage,
  idKey,
  isObject,
  type JsonObject,
  progressToken,
  type RpcId,
  type RpcNotification,
  type RpcRequest,
} from '../../trace/jsonrpc.js';
import type { Json } from '../../trace/types.js';
import { Matcher } from '../cassette/matcher.js';
import { responseToSend } from '../cassette/recorded-exchange.js';
import type {
  Cassette,
  CassetteExchange,
  ClientNotification,
  UnsolicitedMessage,
} from '../cassette/types.js';
import { type EngineOptions, type ReplayOptions, scaledDelay, withDefaults } from '../options.js';
import type { ReplayChannel } from './channel.js';
import { REPLAY_ERROR_CODES } from './codes.js';
import { type AnswerCheck, answerCheck, missData, type ReplayEvent, type ReplayReport } from './events.js';
import { ClientTerms, type VersionNote } from './negotiation.js';
import { errorResponse, type LiveIds, rewriteResponse, rewriteServerMessage } from './rewrite.js';
import { anchoredTimeline, exchangeTimeline, type TimelineItem, unsolicitedByAnchor } from './timeline.js';
import { Playback, Waits } from './waits.js';

/**
 * The mock server: plays a cassette to a live client over a {@link ReplayChannel}. A client request is matched,
 * then its script plays — progress and logs rewritten to the live request, server→client requests sent with fresh
 * ids and their answers awaited (with a timeout) — then the response goes out with the live id. Unsolicited server
 * messages follow the live client message that matches the one they followed in the recording. Each live
 * client's handshake is honoured as a live server would (negotiation.ts): its protocol version, and no question it
 * did not declare it can answer.
 */

export type { AnswerCheck, ReplayEvent, ReplayReport } from './events.js';

/** The pause between a script's last notification and its response when the recorded gap is not replayed. */
const NOTIFICATION_SETTLE_MS = 2;

/** Requests a server answers only when the client lets go of them: their recordings end without a response. */
const LONG_LIVED = new Set(['subscriptions/listen']);

/** No unsolicited messages: one frozen list for every request that has none. */
const NONE: readonly UnsolicitedMessage[] = Object.freeze([]);

/**
 * Construct it on a channel (it listens at once), call `start()` when the client is connected, `close()` at the end.
 * Never hangs: recorded gaps are capped (`maxDelayMs`), answers wait at most `answerTimeoutMs`, close() ends both.
 *
 * @example
 * const [server, client] = linkedChannels();
 * const engine = new ReplayEngine(cassette, server, { timing: 'none' });
 * engine.start();
 * client.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' }); // → the recorded tools/list result, id 1
 * await engine.idle(); console.log(engine.report().summary); engine.close();
 */
export class ReplayEngine {
  readonly matcher: Matcher;
  private readonly options: EngineOptions;
  private readonly anchored: Map<string, UnsolicitedMessage[]>;
  private readonly notificationQueues = new Map<string, ClientNotification[]>();
  private readonly waits: Waits;
  /** Live request id key → its playback, for `notifications/cancelled`. */
  private readonly playing = new Map<string, Playback>();
  /** Recorded listen ordinal → live listen id. */
  private readonly subscriptions = new Map<number, RpcId>();
  private readonly listeners: ((event: ReplayEvent) => void)[] = [];
  private readonly answers: AnswerCheck[] = [];
  private readonly timeouts: string[] = [];
  private readonly faults: FaultRecord[] = [];
  /**
   * Server→client requests sent and not yet answered, by their live id; `blocking` when the client's own request
   * still waits behind it for its response.
   */
  private readonly asking = new Map<
    number,
    { method: string; playback: Playback; exchange: CassetteExchange | undefined; blocking: boolean }
  >();
  /** Each live client's handshake terms; `clientOf` names the client (an HTTP session), else there is one. */
  private readonly clients = new WeakMap<object, ClientTerms>();
  private readonly soleClient = new ClientTerms();
  /** Version notes and withheld methods already told of: each is told once. */
  private readonly told = new Set<string>();
  private readonly idleWaiters: (() => void)[] = [];
  private running = 0;
  private nextId = 0;
  private started = false;
  private closed = false;

  constructor(
    cassette: Cassette,
    private readonly channel: ReplayChannel,
    options: ReplayOptions = {},
  ) {
    this.options = withDefaults(options);
    this.waits = new Waits(this.options.scheduler);
    this.matcher = new Matcher(cassette, this.options);
    this.anchored = unsolicitedByAnchor(cassette);
    for (const notification of cassette.notifications) {
      const queue = this.notificationQueues.get(notification.method);
      if (queue) queue.push(notification);
      else this.notificationQueues.set(notification.method, [notification]);
    }
    channel.onMessage((message) => this.receive(message));
  }

  /** Listens to what happens (hits, misses, answers, timeouts). */
  onEvent(listener: (event: ReplayEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Plays what the server sent before any client message (rare: most servers wait to be asked). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.playAnchor('start');
  }

  /** Resolves when nothing is playing. */
  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops every playback and wait; nothing is sent afterwards. A server→client request whose answer the client's
   * own request was still waiting for counts as unanswered, as a timeout would. One sent after that response (a
   * `roots/list` the session ended on) is how sessions end, not a failure.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const [id, ask] of this.asking) {
      if (ask.blocking && !ask.playback.cancelled)
        this.unanswered(ask.method, id, ask.exchange, 'before the session ended');
    }
    this.asking.clear();
    this.waits.close();
  }

  report(): ReplayReport {
    return {
      ...this.matcher.report(),
      answers: [...this.answers],
      timeouts: [...this.timeouts],
      faults: [...this.faults],
    };
  }

  /** Notes a fault a front door injected: it is reported, and listeners hear of it. */
  injected(fault: FaultRecord): void {
    this.faults.push(fault);
    this.emit({ kind: 'fault', fault });
  }

  private receive(raw: Json): void {
    try {
      this.dispatch(raw);
    } catch (error) {
      // A channel whose send throws must not take the client's side of the channel down with it.
      this.emit({ kind: 'error', error });
    }
  }

  private dispatch(raw: Json): void {
    if (this.closed) return;
    // Batches (legal before 2025-06-18) are taken apart; each item is answered on its own.
    for (const item of Array.isArray(raw) ? raw : [raw]) {
      const message = classifyMessage(item);
      if (message.kind === 'request') this.onRequest(message);
      else if (message.kind === 'notification') this.onNotification(message);
      else if (message.kind === 'response' && message.id !== null && isObject(item)) {
        if (!this.waits.deliver(idKey(message.id), item))
          this.emit({ kind: 'stray', reason: 'an answer to no request replay sent', message: item });
      } else {
        this.emit({
          kind: 'stray',
          reason: 'not a JSON-RPC request, notification or response',
          message: item,
        });
        this.send(errorResponse(null, REPLAY_ERROR_CODES.invalidRequest, 'Invalid Request'));
      }
    }
  }

  private onRequest(request: RpcRequest): void {
    const terms = this.client();
    terms.hear(request);
    const result = this.matcher.match(request.method, request.params);
    if (result.kind === 'miss') {
      this.emit({ kind: 'miss', miss: result.miss, id: request.id });
      const data = { tapedeck: missData(result.miss) };
      this.send(errorResponse(request.id, REPLAY_ERROR_CODES.miss, result.miss.message, data));
      return;
    }
    const { exchange, repeated } = result;
    this.emit({ kind: 'hit', exchange, id: request.id, repeated });
    this.noteVersion(terms.compare(exchange, request));
    if (exchange.method === 'subscriptions/listen') this.subscriptions.set(exchange.ordinal, request.id);
    // Unsolicited messages happened once; a repeated exchange replays its own script only.
    const anchored =
      repeated || this.anchored.size === 0 ? NONE : this.takeAnchored(`request:${exchange.ordinal}`);
    if (anchored.length === 0 && this.answerAtOnce(exchange, request.id, terms)) return;
    const live: LiveIds = {
      id: request.id,
      progressToken: progressToken(request),
      ids: new Map([[idKey(exchange.request.id), request.id]]),
      subscriptions: this.subscriptions,
    };
    const playback = new Playback();
    this.playing.set(idKey(request.id), playback);
    this.run(exchangeTimeline(exchange, anchored), live, playback, exchange, terms).finally(() => {
      if (this.playing.get(idKey(request.id)) === playback) this.playing.delete(idKey(request.id));
    });
  }

  /** A request and its response alone, no gap to wait (most exchanges): sent now, as play() would; else false. */
  private answerAtOnce(exchange: CassetteExchange, id: RpcId, terms: ClientTerms): boolean {
    if (exchange.script.length > 0) return false;
    const atMs = exchange.respondedAtMs ?? 0;
    if (scaledDelay(atMs, this.options.timing, this.options.maxDelayMs) > 0) return false;
    const { response, owned } = responseToSend(exchange);
    if (response === undefined) return false;
    try {
      // What negotiation and the id rewrite make of an owned response shares nothing else either.
      this.send(rewriteResponse(this.negotiate(terms, exchange, { response }), id), owned);
    } catch (error) {
      this.emit({ kind: 'error', error });
    }
    return true;
  }

  private onNotification(notification: RpcNotification): void {
    const cancelled = cancelledRequestId(notification);
    if (cancelled !== undefined) {
      this.playing.get(idKey(cancelled))?.cancel();
      for (const [ordinal, id] of this.subscriptions)
        if (idKey(id) === idKey(cancelled)) this.subscriptions.delete(ordinal);
    }
    // The recorded notification this one stands for: the next unmatched one with the same method.
    const recorded = this.notificationQueues.get(notification.method)?.shift();
    if (recorded) this.playAnchor(`notification:${recorded.index}`);
  }

  private playAnchor(key: string): void {
    const anchored = this.takeAnchored(key);
    if (anchored.length === 0) return;
    const live: LiveIds = {
      id: undefined,
      progressToken: undefined,
      ids: new Map(),
      subscriptions: this.subscriptions,
    };
    void this.run(anchoredTimeline(anchored), live, new Playback(), undefined, this.client());
  }

  private takeAnchored(key: string): readonly UnsolicitedMessage[] {
    if (this.anchored.size === 0) return NONE;
    const anchored = this.anchored.get(key) ?? NONE;
    this.anchored.delete(key);
    return anchored;
  }

  private async run(
    items: TimelineItem[],
    live: LiveIds,
    playback: Playback,
    exchange: CassetteExchange | undefined,
    terms: ClientTerms,
  ): Promise<void> {
    this.running++;
    try {
      await this.play(items, live, playback, exchange, terms);
    } catch (error) {
      this.emit({ kind: 'error', error });
    } finally {
      if (--this.running === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private async play(
    items: TimelineItem[],
    live: LiveIds,
    playback: Playback,
    exchange: CassetteExchange | undefined,
    terms: ClientTerms,
  ): Promise<void> {
    let clock = 0;
    let responded = false;
    let notified = false;
    for (const item of items) {
      const delay = scaledDelay(item.atMs - clock, this.options.timing, this.options.maxDelayMs);
      // A client may take notifications in a later task than the response that came in the same read (the SDK
      // does: progress that arrives with the response is dropped), so a response never goes out in the same turn
      // as the notifications before it.
      const settle = delay === 0 && notified && item.kind === 'response' ? NOTIFICATION_SETTLE_MS : 0;
      if (delay > 0 || settle > 0) await this.waits.sleep(Math.max(delay, settle), playback);
      if (this.closed || playback.cancelled) return;
      clock = Math.max(clock, item.atMs);
      if (item.kind === 'response') {
        if (live.id !== undefined) this.send(rewriteResponse(this.negotiate(terms, exchange, item), live.id));
        responded = true;
        continue;
      }
      const message = rewriteServerMessage(item.message.message, live, item.unsolicited?.subscription);
      if (!message) continue;
      if (item.message.kind === 'notification') {
        this.send(message);
        notified = true;
        continue;
      }
      const missing = terms.missing(item.message.message);
      if (missing !== undefined) {
        // Not asked, as a live server would not ask; the recording's answer stands in for the client's.
        this.withhold(item.message.method, missing, exchange);
        clock = Math.max(clock, item.message.answeredAtMs ?? clock);
        if (item.unsolicited) this.playAnchor(`answer:${item.unsolicited.index}`);
        continue;
      }
      const id = this.nextId++;
      const recordedId = item.message.message.id;
      if (typeof recordedId === 'string' || typeof recordedId === 'number')
        live.ids.set(idKey(recordedId), id);
      this.send({ ...message, id });
      const blocking = live.id !== undefined && !responded;
      this.asking.set(id, { method: item.message.method, playback, exchange, blocking });
      const outcome = await this.waits.answer(idKey(id), this.options.answerTimeoutMs, playback);
      this.asking.delete(id);
      if (outcome.kind === 'stopped' || this.closed || playback.cancelled) return;
      if (outcome.kind === 'timeout') {
        this.timedOut(item.message.method, id, live, exchange);
        return;
      }
      this.checkAnswer(item.message.method, item.message.answer, outcome.message, exchange);
      clock = Math.max(clock, item.message.answeredAtMs ?? clock);
      if (item.unsolicited) this.playAnchor(`answer:${item.unsolicited.index}`);
    }
    // The timeline holds the response when the exchange has one (reading it again would parse it again).
    if (exchange && !responded && live.id !== undefined) this.noResponse(exchange, live.id);
  }

  /**
   * A matched exchange the recording never saw answered. A long-lived request stays open, as it did; one the
   * recorded client cancelled waits for the live client's cancellation; any other gets an error at once — the
   * recording ended first, or its response line was unreadable — so the client is not left waiting.
   */
  private noResponse(exchange: CassetteExchange, id: RpcId): void {
    if (LONG_LIVED.has(exchange.method) || exchange.cancelled) return;
    const where = exchange.lineNo === undefined ? '' : ` (line ${exchange.lineNo})`;
    const message = `the recording holds no response to ${this.describe(exchange)}${where}: it ended, or the response's line could not be read, before the server answered`;
    this.emit({ kind: 'no-response', exchange: exchange.ordinal, message });
    this.send(errorResponse(id, REPLAY_ERROR_CODES.noResponse, message));
  }

  /** The live client's terms: its own when the front door names clients (HTTP sessions), else the one client's. */
  private client(): ClientTerms {
    const key = this.options.clientOf?.();
    if (key === undefined) return this.soleClient;
    let terms = this.clients.get(key);
    if (terms === undefined) {
      terms = new ClientTerms();
      this.clients.set(key, terms);
    }
    return terms;
  }

  /** The response as this client gets it: an `initialize` answer names the version it negotiated. */
  private negotiate(
    terms: ClientTerms,
    exchange: CassetteExchange | undefined,
    item: { response: JsonObject },
  ): JsonObject {
    if (exchange === undefined) return item.response;
    const { response, note } = terms.answer(exchange, item.response);
    this.noteVersion(note);
    return response;
  }

  private noteVersion(note: VersionNote | undefined): void {
    if (note === undefined || !this.tell(`version ${note.via} ${note.recorded} ${note.asked}`)) return;
    this.emit({ kind: 'version', note });
  }

  private withhold(method: string, capability: string, exchange: CassetteExchange | undefined): void {
    const first = this.tell(`withheld ${method}`);
    this.emit({ kind: 'withheld', method, capability, exchange: exchange?.ordinal, first });
  }

  /** True the first time `what` is told. */
  private tell(what: string): boolean {
    if (this.told.has(what)) return false;
    this.told.add(what);
    return true;
  }

  private describe(exchange: CassetteExchange): string {
    const normalized = this.matcher.normalizer.normalize(exchange.method, exchange.request.params);
    return describeRequest(this.matcher.show(normalized));
  }

  private timedOut(method: string, id: number, live: LiveIds, exchange: CassetteExchange | undefined): void {
    const within = `within ${this.options.answerTimeoutMs} ms`;
    const setting = this.options.settingNames.answerTimeout;
    const message = this.unanswered(method, id, exchange, within, setting ? `${setting}, or ` : '');
    if (live.id !== undefined) this.send(errorResponse(live.id, REPLAY_ERROR_CODES.answerTimeout, message));
  }

  /** Counts a server→client request the client did not answer `when` (in time, or before the end). */
  private unanswered(
    method: string,
    id: number,
    exchange: CassetteExchange | undefined,
    when: string,
    raise = '',
  ): string {
    const waiting = exchange ? `the recorded ${this.describe(exchange)} needs it` : 'it was sent unsolicited';
    const message = `the client did not answer ${method} (id ${id}) ${when}; ${waiting} (${raise ? `raise ${raise}` : ''}check the client handles ${method})`;
    this.timeouts.push(message);
    this.emit({ kind: 'timeout', method, exchange: exchange?.ordinal, message });
    return message;
  }

  private checkAnswer(
    method: string,
    recorded: JsonObject | undefined,
    answer: JsonObject,
    exchange: CassetteExchange | undefined,
  ): void {
    const check = answerCheck(method, recorded, answer, exchange?.ordinal, this.options);
    this.answers.push(check);
    this.emit({ kind: 'answer', answer: check });
  }

  private send(message: JsonObject, owned = false): void {
    if (!this.closed) this.channel.send(message, owned);
  }

  private emit(event: ReplayEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
