import type { Attribution, Exchange } from './exchange.js';

/**
 * The client requests still open on each connection, and which of them a server message that names none may
 * belong to. Over HTTP the response stream the message came on says so for certain (`stream`). Otherwise nothing on
 * the wire does — the SDK's `relatedRequestId` never crosses stdio — and the pairer can only guess
 * (`open-request`): the most recently opened request still open. The evidence there is comes first, and keeps a
 * message out of any request:
 * - nothing open: the message belongs to none;
 * - the handshake: from `initialize` until the client's `notifications/initialized` (or, for a client that never
 *   sends it, its first other request) the session is not running yet, and a server may send nothing but pings and
 *   log messages — about the session, never about a request;
 * - requests that do no work a server could report on: `ping`, `initialize`, `subscriptions/listen` (open for the
 *   whole subscription), and cancelled ones;
 * - session-wide notifications (`…/list_changed`, `resources/updated`) are never guessed into a request.
 * A guess is marked as one (Exchange.guessed, `guessed` on children and events), so readers can show it apart.
 */

/** Requests that stay open without doing work a server message could be about. */
const NOT_PARENTS = new Set(['subscriptions/listen', 'ping', 'initialize']);

/**
 * Notifications about the session rather than about one call: the `open-request` guess never applies to them
 * (a `tools/list_changed` that happens to arrive during a `tools/list` is not its answer).
 */
export const SESSION_SCOPED: ReadonlySet<string> = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
]);

/** A parent found for a server message, and how. */
export interface Found {
  parent: Exchange;
  via: Attribution;
}

/**
 * The open client requests per scope (server + connection) and the handshake state per server.
 *
 * @example
 * const open = new OpenRequests();
 * open.clientMessage('', 'initialize');
 * open.find('', '', undefined, true); // → undefined: during the handshake nothing is guessed
 */
export class OpenRequests {
  /** scope → open client requests, oldest first. */
  private readonly stacks = new Map<string, Exchange[]>();
  /** Servers whose handshake is under way (initialize sent, the session not yet running). */
  private readonly handshakes = new Set<string>();

  /**
   * Notes a client message by method, for the handshake: `initialize` starts one on its server, the
   * `notifications/initialized` that ends it, or any other request from a client that never sends that.
   */
  clientMessage(server: string, method: string, request = false): void {
    if (method === 'initialize') this.handshakes.add(server);
    else if (method === 'notifications/initialized' || (request && method !== 'ping'))
      this.handshakes.delete(server);
  }

  /** A client request opened on `scope`. */
  push(scope: string, exchange: Exchange): void {
    const stack = this.stacks.get(scope);
    if (stack) stack.push(exchange);
    else this.stacks.set(scope, [exchange]);
  }

  /** A client request closed (answered or abandoned). The scope's list is kept: a connection reuses it. */
  remove(scope: string, exchange: Exchange): void {
    const stack = this.stacks.get(scope);
    if (stack === undefined) return;
    const at = stack.lastIndexOf(exchange);
    if (at === stack.length - 1) stack.pop();
    else if (at >= 0) stack.splice(at, 1);
  }

  /**
   * The open request a server message on `scope` belongs to: by its response stream when it has one (certain),
   * else, when `guess` allows, the newest request that may have work under way (a guess); undefined for none.
   */
  find(scope: string, server: string, stream: string | undefined, guess: boolean): Found | undefined {
    const stack = this.stacks.get(scope);
    if (!stack || stack.length === 0) return undefined;
    if (stream !== undefined) {
      let tagged = false;
      for (let i = stack.length - 1; i >= 0; i--) {
        const candidate = stack[i]!;
        if (candidate.requestRef.line.stream === stream) return { parent: candidate, via: 'stream' };
        tagged ||= candidate.requestRef.line.stream !== undefined;
      }
      // Requests carry their streams but none is this one: a standalone (GET) stream, tied to no request.
      if (tagged) return undefined;
    }
    if (!guess || this.handshakes.has(server)) return undefined;
    for (let i = stack.length - 1; i >= 0; i--) {
      const candidate = stack[i]!;
      if (!candidate.cancelled && !NOT_PARENTS.has(candidate.method))
        return { parent: candidate, via: 'open-request' };
    }
    return undefined;
  }
}
