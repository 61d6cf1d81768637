import type { Exchange, MessageRef, PairEvent } from '../../trace/exchange.js';
import { formatId, isObject, type JsonObject } from '../../trace/jsonrpc.js';
import { isRetry, linkRounds } from './mrtr.js';
import { NO_SCRIPT, RecordedExchange, recordedRequest } from './recorded-exchange.js';
import type {
  Anchor,
  Cassette,
  CassetteExchange,
  ClientNotification,
  ServerMessage,
  UnsolicitedMessage,
} from './types.js';

export { recordedRequest, responseToSend } from './recorded-exchange.js';

/**
 * Turns one server's pairing events into scripts: each server message goes to the script of the client request
 * pairing attributed it to, or becomes unsolicited, anchored to the client message before it. Notifications of a
 * 2026-era subscription are unsolicited too (tagged with their `subscriptions/listen`): a `list_changed` follows
 * whatever the client did that changed the list, not the listen request.
 *
 * @example
 * const builder = new ServerScriptBuilder();
 * let order = 0;
 * for (const event of pairTrace(lines)) if (event.kind !== 'line') builder.push(event, order++);
 * const { exchanges, unsolicited } = builder.finish();
 */
export class ServerScriptBuilder {
  private readonly exchanges: CassetteExchange[] = [];
  private readonly unsolicited: UnsolicitedMessage[] = [];
  private readonly notifications: ClientNotification[] = [];
  private readonly warnings: string[] = [];
  /** Server→client requests waiting for the client's answer, with the time their `atMs` counts from. */
  private readonly asks = new Map<
    Exchange,
    { message: ServerMessage; from: number | undefined; owner: Owner }
  >();
  /**
   * Per connection (an HTTP recording holds several MCP sessions): the client message the next unsolicited server
   * message on that connection would follow.
   */
  private readonly last = new Map<string, Last>();
  /** Time of the trace's first message: what `start` anchors count from. */
  private startTime: number | undefined;
  /** Whether a request is an MRTR retry or was answered `input_required`: only then are rounds linked. */
  private rounds = false;

  /**
   * Takes one pairing event of this server; `order` is its position in the trace (strictly increasing), `text` the
   * JSON text of its trace line when known — a request or response is then kept as that text until it is first read.
   */
  push(event: Exclude<PairEvent, { kind: 'line' }>, order: number, text?: string): void {
    if (event.kind !== 'unanswered' && this.startTime === undefined) this.startTime = event.ref.time;
    switch (event.kind) {
      case 'request':
        if (event.exchange.dir === 'in') this.clientRequest(event.exchange, event.ref, order, text);
        else this.serverMessage('request', event.ref, order, event.exchange.parent, false, event.exchange);
        return;
      case 'response':
        if (event.exchange.dir === 'in') this.clientExchangeAnswered(event.exchange, event.ref, order, text);
        else this.clientAnswered(event.exchange, event.ref, order);
        return;
      case 'notification':
        if (event.ref.line.dir === 'in') this.clientNotification(event.ref, order);
        else
          this.serverMessage('notification', event.ref, order, event.parent, event.via === 'subscriptionId');
        return;
      case 'unanswered': {
        const exchange = this.open(event.exchange);
        if (exchange) {
          exchange.outcome = 'unanswered';
          exchange.cancelled = event.exchange.cancelled;
        }
        return;
      }
      case 'orphan':
        this.warn(event.ref, `response to unknown id ${formatId(event.response.id)} left out`);
        return;
      case 'invalid':
        this.warn(event.ref, `invalid message left out: ${event.reason}`);
        return;
    }
  }

  /**
   * The cassette parts, with MRTR rounds linked. Call it once the pairer has finished: its `unanswered` events
   * carry the cancellations of the requests left open.
   */
  finish(): Pick<Cassette, 'exchanges' | 'unsolicited' | 'notifications' | 'warnings'> {
    // Linking reads every request: a session without multi-round-trip requests (most) leaves its lines unread.
    if (this.rounds) linkRounds(this.exchanges, (exchange) => recordedRequest(exchange).request.params);
    return {
      exchanges: this.exchanges,
      unsolicited: this.unsolicited,
      notifications: this.notifications,
      warnings: this.warnings,
    };
  }

  private clientRequest(paired: Exchange, ref: MessageRef, order: number, text?: string): void {
    const exchange = new RecordedExchange(this.exchanges.length, paired, rawItem(ref), order, ref);
    // A line of one message can stand for its request until it is read; a batch's item is kept as it is.
    if (text !== undefined && ref.item === undefined) exchange.requestLine(text);
    if (isRetry(paired.request.params)) this.rounds = true;
    this.exchanges.push(exchange);
    // An open request's cassette exchange hangs on its pairing record: no lookup table to keep per request.
    paired.attached = exchange;
    // Every request moves its connection's anchor: the anchor object itself is made only if a message needs it.
    const conn = connOf(ref);
    const last = this.last.get(conn);
    if (last === undefined)
      this.last.set(conn, { anchor: undefined, exchange: exchange.ordinal, time: ref.time });
    else {
      last.anchor = undefined;
      last.exchange = exchange.ordinal;
      last.time = ref.time;
    }
  }

  private clientExchangeAnswered(paired: Exchange, ref: MessageRef, order: number, text?: string): void {
    const exchange = this.open(paired);
    if (!exchange) return;
    // A line of one message can stand for it until it is served; a batch's item is taken out now.
    if (text !== undefined && ref.item === undefined) exchange.responseLine(text);
    else exchange.response = rawItem(ref);
    exchange.respondedAtMs = since(ref.time, exchange.time);
    exchange.responseOrder = order;
    exchange.outcome = paired.outcome;
    if (exchange.outcome === 'input_required') this.rounds = true;
    // Only an open request can be cancelled or get server messages: its pairing record is done with.
    exchange.cancelled = paired.cancelled;
    paired.attached = undefined;
  }

  /** The client answered a server→client request: a client message, so later unsolicited ones follow it. */
  private clientAnswered(paired: Exchange, ref: MessageRef, order: number): void {
    const ask = this.asks.get(paired);
    if (!ask) return;
    this.asks.delete(paired);
    ask.message.answer = rawItem(ref);
    ask.message.answeredAtMs = since(ref.time, ask.from);
    ask.message.answerOrder = order;
    ask.message.answeredAt = ref.time;
    this.last.set(
      connOf(ref),
      ask.owner.kind === 'exchange'
        ? { anchor: undefined, exchange: ask.owner.exchange.ordinal, time: ask.owner.exchange.time }
        : { anchor: { kind: 'answer', unsolicited: ask.owner.index }, exchange: -1, time: ref.time },
    );
  }

  private clientNotification(ref: MessageRef, order: number): void {
    const message = rawItem(ref);
    const index = this.notifications.length;
    const method = typeof message.method === 'string' ? message.method : '';
    const conn = typeof ref.line.conn === 'string' ? ref.line.conn : undefined;
    this.notifications.push({ index, method, message, time: ref.time, order, lineNo: ref.lineNo, conn });
    this.last.set(connOf(ref), {
      anchor: { kind: 'notification', notification: index },
      exchange: -1,
      time: ref.time,
    });
  }

  private serverMessage(
    kind: ServerMessage['kind'],
    ref: MessageRef,
    order: number,
    parent: Exchange | undefined,
    subscribed: boolean,
    ask?: Exchange,
  ): void {
    const message = rawItem(ref);
    const base = {
      kind,
      method: typeof message.method === 'string' ? message.method : '',
      message,
      answer: undefined,
      answeredAtMs: undefined,
      order,
      lineNo: ref.lineNo,
      conn: typeof ref.line.conn === 'string' ? ref.line.conn : undefined,
    };
    const owner = subscribed ? undefined : this.clientOwner(parent);
    if (owner) {
      const step: ServerMessage = { ...base, atMs: since(ref.time, owner.time) };
      // The builder made every non-empty script itself: it is a list of its own to add to.
      if (owner.script === NO_SCRIPT) owner.script = [step];
      else (owner.script as ServerMessage[]).push(step);
      if (ask)
        this.asks.set(ask, { message: step, from: owner.time, owner: { kind: 'exchange', exchange: owner } });
      return;
    }
    const listen = subscribed ? this.clientOwner(parent) : undefined;
    const last = this.last.get(connOf(ref));
    const from = last === undefined ? this.startTime : last.time;
    let anchor: Anchor = START;
    if (last !== undefined) {
      last.anchor ??= { kind: 'request', exchange: last.exchange };
      anchor = last.anchor;
    }
    const unsolicited: UnsolicitedMessage = {
      ...base,
      atMs: since(ref.time, from),
      index: this.unsolicited.length,
      anchor,
      subscription: listen?.ordinal,
    };
    this.unsolicited.push(unsolicited);
    if (ask) this.asks.set(ask, { message: unsolicited, from, owner: unsolicited });
  }

  /** The client request a server message belongs to: its parent, or the parent of the server request it concerns. */
  private clientOwner(parent: Exchange | undefined): CassetteExchange | undefined {
    for (let at = parent; at; at = at.parent) if (at.dir === 'in') return this.open(at);
    return undefined;
  }

  /** The cassette exchange of a client request still open (this builder attached it), or undefined. */
  private open(paired: Exchange): RecordedExchange | undefined {
    return paired.attached as RecordedExchange | undefined;
  }

  private warn(ref: MessageRef, text: string): void {
    this.warnings.push(ref.lineNo === undefined ? text : `line ${ref.lineNo}: ${text}`);
  }
}

type Owner = { kind: 'exchange'; exchange: CassetteExchange } | UnsolicitedMessage;

const START: Anchor = { kind: 'start' };

/** The client message the next unsolicited server message would follow: `anchor`, or request `exchange`'s. */
interface Last {
  anchor: Anchor | undefined;
  exchange: number;
  time: number | undefined;
}

/** The connection a message travelled on ('' when the trace names none, as over stdio). */
function connOf(ref: MessageRef): string {
  return typeof ref.line.conn === 'string' ? ref.line.conn : '';
}

/** The JSON-RPC object of one item (a batch line holds several). */
function rawItem(ref: MessageRef): JsonObject {
  const raw =
    ref.item === undefined ? ref.line.raw : Array.isArray(ref.line.raw) ? ref.line.raw[ref.item] : null;
  return isObject(raw) ? raw : {};
}

function since(time: number | undefined, from: number | undefined): number {
  return time !== undefined && from !== undefined ? Math.max(0, time - from) : 0;
}
