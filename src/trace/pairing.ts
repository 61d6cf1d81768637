import type {
  Attribution,
  Exchange,
  MessageRef,
  PairEvent,
  PairerOptions,
  PairingResult,
} from './exchange.js';
import { IdTable, QueueTable } from './id-tables.js';
import {
  cancelledRequestId,
  classifyItem,
  messageItems,
  progressToken,
  type RpcId,
  type RpcItem,
  type RpcNotification,
  type RpcRequest,
  responseOutcome,
  subscriptionId,
} from './jsonrpc.js';
import { OpenRequests, SESSION_SCOPED } from './open-requests.js';
import { lineTime } from './time.js';
import type { Direction, MessageLine, TraceLine } from './types.js';
import { isMessageLine } from './types.js';

export type {
  Attribution,
  Exchange,
  ExchangeChild,
  ExchangeOutcome,
  MessageRef,
  PairEvent,
  PairerOptions,
  PairingResult,
} from './exchange.js';

/**
 * Request ↔ response pairing, streaming. Memory is proportional to the requests still open, never to the trace.
 *
 * Correlation (trace format v1): a response answers the request with the same id on the same server and connection that
 * travelled in the opposite direction. Ids are never compared across directions, servers or connections, and `1`
 * and `"1"` are different ids.
 *
 * Attribution of server messages to the request they belong to, first rule that applies wins:
 * 1. `progressToken`: a `notifications/progress` goes to the open request whose `params._meta.progressToken` matches;
 * 2. `subscriptionId`: a 2026-era notification carrying `_meta["io.modelcontextprotocol/subscriptionId"]` goes to
 *    that `subscriptions/listen` request;
 * 3. `requestId`: a `notifications/cancelled` goes to the request it cancels (and marks it cancelled);
 * 4. `stream`: on HTTP, a server message on the same response stream as an open client request belongs to it;
 * 5. `open-request` (a guess): any other server→client notification or request goes to the most recently opened
 *    client request on that server+connection that may have work under way. Over stdio nothing on the wire says
 *    more (the SDK's `relatedRequestId` never crosses it), so this is only a guess, and with concurrent requests
 *    it may pick the wrong one: such a tie is marked `guessed` (on the exchange, the child and the event), and
 *    readers show it as a guess. What evidence there is comes first (open-requests.ts): nothing open, the
 *    handshake under way, session-wide notifications, requests that do no work (`ping`, `initialize`,
 *    `subscriptions/listen`, cancelled ones) — the message then belongs to none.
 * Client→server notifications only attach by rules 1–3. Anything else is top level (parent undefined).
 *
 * HTTP (meta `transport` http or sse): every POST is its own connection, yet a server→client request sent on one
 * stream is answered by a new POST, and a `notifications/cancelled` arrives on yet another. So on HTTP traces a
 * response or cancellation that matches nothing on its own connection falls back to the open request of the same
 * server, opposite direction and id on another connection — only when exactly one such request exists.
 */

function opposite(dir: Direction): Direction {
  return dir === 'in' ? 'out' : 'in';
}

function serverOf(line: { [key: string]: unknown }): string {
  return typeof line.server === 'string' ? line.server : '';
}

/** The scope of a line that names neither server nor connection (every line of a plain stdio trace). */
const NO_SCOPE = '\u0000';

function scopeOf(line: { [key: string]: unknown }): string {
  const server = line.server;
  const conn = line.conn;
  if (server === undefined && conn === undefined) return NO_SCOPE;
  return `${typeof server === 'string' ? server : ''}\u0000${typeof conn === 'string' ? conn : ''}`;
}

/**
 * Incremental pairer: push lines in trace order, get events back; call `finish()` at the end of input to
 * flush requests that were never answered.
 *
 * @example
 * const pairer = new Pairer();
 * for (const line of lines) for (const ev of pairer.push(line)) if (ev.kind === 'response') console.log(ev.exchange.latencyMs);
 * pairer.finish();
 */
export class Pairer {
  private readonly keepChildren: boolean;
  /** scope + dir + id → open exchanges (a queue, in case a peer reuses an id before it was answered). */
  private readonly open = new QueueTable();
  /** scope + dir + token → exchange that asked for progress with that token. */
  private readonly tokens = new IdTable<Exchange>();
  /** The open client requests server messages may belong to, and the handshake state. */
  private readonly clientRequests = new OpenRequests();
  /** server + dir + id → open exchanges on any connection, for the HTTP fallback. */
  private readonly byServer = new QueueTable();
  /** The trace is HTTP: connections are requests, ids live in the session (see the module comment). */
  private http = false;
  private ordinal = 0;
  private index = 0;

  constructor(options: PairerOptions = {}) {
    this.keepChildren = options.children !== 'none';
  }

  /** Number of requests still waiting for a response. */
  get openCount(): number {
    let n = 0;
    for (const queue of this.open.values()) n += queue.length;
    return n;
  }

  /** Feeds one trace line; returns the events it produced (usually one). */
  push(line: TraceLine, lineNo?: number): PairEvent[] {
    const events: PairEvent[] = [];
    this.pushEach(line, lineNo, (event) => events.push(event));
    return events;
  }

  /** {@link push} handing each event to `each` as it is produced, for callers that pair millions of lines. */
  pushEach(line: TraceLine, lineNo: number | undefined, each: (event: PairEvent) => void): void {
    const index = this.index++;
    if (!isMessageLine(line)) {
      if (line.type === 'meta') this.http = line.transport === 'http' || line.transport === 'sse';
      each({ kind: 'line', line, index, lineNo });
      if (line.type === 'event' && line.name === 'disconnect') {
        const scope = scopeOf(line);
        for (const event of this.abandon((x) => scopeOf(x.requestRef.line) === scope)) each(event);
      }
      return;
    }
    const time = lineTime(line);
    // Most lines hold one message: classified and paired without the arrays a batch needs.
    if (!Array.isArray(line.raw)) {
      each(this.pushItem(classifyItem(line.raw), { line, index, lineNo, item: undefined, time }));
      return;
    }
    const items = messageItems(line.raw);
    if (items.length === 0) {
      each({
        kind: 'invalid',
        reason: 'an empty batch',
        ref: { line, index, lineNo, item: undefined, time },
      });
      return;
    }
    for (const [i, item] of items.entries())
      each(this.pushItem(item, { line, index, lineNo, item: i, time }));
  }

  /** Ends the input: every request still open is reported as `unanswered`, oldest first. */
  finish(): PairEvent[] {
    return this.abandon(() => true);
  }

  /** Closes the open requests `which` selects as unanswered (end of input, or their connection went away). */
  private abandon(which: (exchange: Exchange) => boolean): PairEvent[] {
    const gone = [...this.open.values()].flat().filter(which);
    gone.sort((a, b) => a.ordinal - b.ordinal);
    return gone.map((exchange) => {
      this.close(exchange);
      exchange.outcome = 'unanswered';
      return { kind: 'unanswered', exchange };
    });
  }

  private pushItem(item: RpcItem, ref: MessageRef): PairEvent {
    const dir = ref.line.dir;
    const scope = scopeOf(ref.line);
    switch (item.kind) {
      case 'request':
        return this.openRequest(item, ref, scope);
      case 'response': {
        const exchange = item.id === null ? undefined : this.lookup(ref.line, opposite(dir), item.id, true);
        if (!exchange) return { kind: 'orphan', response: item, ref };
        this.close(exchange);
        exchange.response = item;
        exchange.responseRef = ref;
        const start = exchange.requestRef.time;
        exchange.latencyMs = start !== undefined && ref.time !== undefined ? ref.time - start : undefined;
        exchange.outcome = responseOutcome(item);
        return { kind: 'response', exchange, ref };
      }
      case 'notification': {
        if (dir === 'in') this.clientRequests.clientMessage(serverOf(ref.line), item.method);
        const found = this.attribute(item, ref, scope);
        if (found?.via === 'requestId') found.parent.cancelled = true;
        const guessed = found?.via === 'open-request';
        if (found && this.keepChildren) {
          found.parent.children.push({
            kind: 'notification',
            notification: item,
            ref,
            via: found.via,
            guessed,
          });
        }
        return {
          kind: 'notification',
          notification: item,
          ref,
          parent: found?.parent,
          via: found?.via,
          guessed,
          depth: found ? found.parent.depth + 1 : 0,
        };
      }
      case 'invalid':
        return { kind: 'invalid', reason: item.reason, ref };
    }
  }

  private openRequest(request: RpcRequest, ref: MessageRef, scope: string): PairEvent {
    const dir = ref.line.dir;
    if (dir === 'in') this.clientRequests.clientMessage(serverOf(ref.line), request.method, true);
    const found =
      dir === 'out' ? this.clientRequests.find(scope, serverOf(ref.line), ref.line.stream, true) : undefined;
    const guessed = found?.via === 'open-request';
    const exchange: Exchange = {
      ordinal: this.ordinal++,
      server: typeof ref.line.server === 'string' ? ref.line.server : undefined,
      conn: typeof ref.line.conn === 'string' ? ref.line.conn : undefined,
      dir,
      id: request.id,
      method: request.method,
      request,
      requestRef: ref,
      response: undefined,
      responseRef: undefined,
      latencyMs: undefined,
      outcome: 'open',
      cancelled: false,
      parent: found?.parent,
      via: found?.via,
      guessed,
      depth: found ? found.parent.depth + 1 : 0,
      children: [],
      attached: undefined,
    };
    if (found && this.keepChildren)
      found.parent.children.push({ kind: 'exchange', exchange, via: found.via, guessed });
    this.open.queues(scope, dir).add(request.id, exchange);
    // Only HTTP traces look across connections (see lookup).
    if (this.http) this.byServer.queues(serverOf(ref.line), dir).add(request.id, exchange);
    const token = progressToken(request);
    if (token !== undefined) this.tokens.ids(scope, dir).set(token, exchange);
    if (dir === 'in') this.clientRequests.push(scope, exchange);
    return { kind: 'request', exchange, ref };
  }

  private lookup(
    line: MessageLine,
    dir: Direction,
    id: RpcId,
    acrossConnections: boolean,
  ): Exchange | undefined {
    const own = this.open.get(scopeOf(line), dir, id)?.[0];
    if (own || !this.http || !acrossConnections) return own;
    const others = this.byServer.get(serverOf(line), dir, id);
    return others?.length === 1 ? others[0] : undefined;
  }

  private close(exchange: Exchange): void {
    const scope = scopeOf(exchange.requestRef.line);
    this.open.queues(scope, exchange.dir).remove(exchange.id, exchange);
    if (this.http) {
      this.byServer.queues(serverOf(exchange.requestRef.line), exchange.dir).remove(exchange.id, exchange);
    }
    const token = progressToken(exchange.request);
    if (token !== undefined) {
      const tokens = this.tokens.ids(scope, exchange.dir);
      if (tokens.get(token) === exchange) tokens.delete(token);
    }
    if (exchange.dir === 'in') this.clientRequests.remove(scope, exchange);
  }

  private attribute(
    item: RpcNotification,
    ref: MessageRef,
    scope: string,
  ): { parent: Exchange; via: Attribution } | undefined {
    const dir = ref.line.dir;
    // Progress and subscription notifications answer a request that travelled the other way.
    const token = progressToken(item);
    if (token !== undefined) {
      const parent = this.tokens.get(scope, opposite(dir), token);
      if (parent) return { parent, via: 'progressToken' };
    }
    const subscription = subscriptionId(item);
    if (subscription !== undefined) {
      const parent = this.lookup(ref.line, opposite(dir), subscription, false);
      if (parent) return { parent, via: 'subscriptionId' };
    }
    // A cancellation travels the same way as the request it cancels.
    const cancelled = cancelledRequestId(item);
    if (cancelled !== undefined) {
      const parent = this.lookup(ref.line, dir, cancelled, true);
      if (parent) return { parent, via: 'requestId' };
    }
    return dir === 'out'
      ? this.clientRequests.find(scope, serverOf(ref.line), ref.line.stream, !SESSION_SCOPED.has(item.method))
      : undefined;
  }
}

/**
 * Pairs a whole trace lazily: yields events in input order, then the unanswered requests.
 *
 * @example for (const ev of pairTrace(lines)) if (ev.kind === 'orphan') console.log('orphan', ev.response.id);
 */
export function* pairTrace(lines: Iterable<TraceLine>, options: PairerOptions = {}): Generator<PairEvent> {
  const pairer = new Pairer(options);
  for (const line of lines) yield* pairer.push(line);
  yield* pairer.finish();
}

/**
 * Async variant of {@link pairTrace} for streamed readers; memory stays proportional to the open requests.
 *
 * @example for await (const ev of pairTraceAsync(openedTrace.lines)) …
 */
export async function* pairTraceAsync(
  lines: AsyncIterable<TraceLine> | Iterable<TraceLine>,
  options: PairerOptions = {},
): AsyncGenerator<PairEvent> {
  const pairer = new Pairer(options);
  for await (const line of lines) yield* pairer.push(line);
  yield* pairer.finish();
}

/**
 * Pairs a trace into plain arrays. Holds the whole trace: meant for tests and small traces, use {@link pairTrace}
 * for big ones.
 *
 * @example collectExchanges(lines).exchanges.map((e) => `${e.method} ${e.latencyMs}ms`)
 */
export function collectExchanges(lines: Iterable<TraceLine>): PairingResult {
  const result: PairingResult = { exchanges: [], unanswered: [], orphans: [], topLevel: [] };
  for (const ev of pairTrace(lines)) {
    if (ev.kind === 'response') result.exchanges.push(ev.exchange);
    else if (ev.kind === 'unanswered') result.unanswered.push(ev.exchange);
    else if (ev.kind === 'orphan') result.orphans.push({ response: ev.response, ref: ev.ref });
    else if (ev.kind === 'notification' && !ev.parent)
      result.topLevel.push({ notification: ev.notification, ref: ev.ref });
  }
  result.exchanges.sort((a, b) => a.ordinal - b.ordinal);
  result.unanswered.sort((a, b) => a.ordinal - b.ordinal);
  return result;
}
