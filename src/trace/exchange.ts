import type { RpcId, RpcNotification, RpcRequest, RpcResponse } from './jsonrpc.js';
import type { Direction, MessageLine, TraceLine } from './types.js';

// What pairing produces: exchanges (a request with its response and the messages that belong to it) and the
// events of a streaming pass. The algorithm lives in pairing.ts.

/** How a message was tied to its parent request. */
export type Attribution = 'progressToken' | 'subscriptionId' | 'requestId' | 'stream' | 'open-request';

/** Where one JSON-RPC item sits in the input. */
export interface MessageRef {
  line: MessageLine;
  /** 0-based position of the line in the input. */
  index: number;
  /** 1-based line number in the file, when the reader knows it. */
  lineNo: number | undefined;
  /** Position inside a batch; undefined when the line is a single message. */
  item: number | undefined;
  /** `line.t` in epoch ms, undefined when absent or unparseable. */
  time: number | undefined;
}

export type ExchangeOutcome = 'open' | 'ok' | 'error' | 'tool_error' | 'input_required' | 'unanswered';

export interface Exchange {
  /** Ordinal of the request in the trace (0, 1, 2 …), stable across runs. */
  ordinal: number;
  server: string | undefined;
  conn: string | undefined;
  /** Direction the request travelled: `in` for client requests, `out` for server→client requests. */
  dir: Direction;
  id: RpcId;
  method: string;
  request: RpcRequest;
  requestRef: MessageRef;
  response: RpcResponse | undefined;
  responseRef: MessageRef | undefined;
  latencyMs: number | undefined;
  outcome: ExchangeOutcome;
  /** A `notifications/cancelled` named this request. */
  cancelled: boolean;
  parent: Exchange | undefined;
  via: Attribution | undefined;
  /**
   * The tie to `parent` is a guess (`via` is `open-request`): nothing on the wire names the request, it was only the
   * one open at the time. Show it as a guess, not as a certain child.
   */
  guessed: boolean;
  /** How many parents up the top level is, guessed ties included (see {@link certainDepth} for certain ones). */
  depth: number;
  /** Notifications and server→client exchanges that belong to this request, in arrival order. */
  children: ExchangeChild[];
  /**
   * Free for whoever consumes the pairing events to hang its own record of the exchange on (replay's script
   * builder does, for every request of a cassette); pairing sets it to undefined and never reads it.
   */
  attached?: unknown;
}

/** A message that belongs to a request; `guessed` as on {@link Exchange}. */
export type ExchangeChild =
  | {
      kind: 'notification';
      notification: RpcNotification;
      ref: MessageRef;
      via: Attribution;
      guessed: boolean;
    }
  | { kind: 'exchange'; exchange: Exchange; via: Attribution; guessed: boolean };

/** One step of the pairing, emitted in input order (one per batch item, one per non-message line). */
export type PairEvent =
  | { kind: 'request'; exchange: Exchange; ref: MessageRef }
  | { kind: 'response'; exchange: Exchange; ref: MessageRef }
  | {
      kind: 'notification';
      notification: RpcNotification;
      ref: MessageRef;
      parent: Exchange | undefined;
      via: Attribution | undefined;
      /** The tie to `parent` is a guess (see Exchange.guessed). */
      guessed: boolean;
      depth: number;
    }
  | { kind: 'orphan'; response: RpcResponse; ref: MessageRef }
  | { kind: 'invalid'; reason: string; ref: MessageRef }
  | { kind: 'line'; line: TraceLine; index: number; lineNo: number | undefined }
  | { kind: 'unanswered'; exchange: Exchange };

/**
 * How deep a message sits counting only the ties the wire proves: a guessed tie puts it beside its would-be parent,
 * not under it. For an exchange pass its `parent` and `guessed`; for a notification event, the event's. The one
 * nesting rule: `tapedeck show` and the web timeline (whole or paged) indent by it, and mark a guessed tie apart
 * ("maybe for #id", a dotted connector and `?`) without indenting it. A server request tied by the transport (the
 * HTTP stream of its call) is certain; one only open at the same time as a call (a stdio roots/list) is not.
 *
 * @example certainDepth(exchange.parent, exchange.guessed) // → 0 for a roots/list only guessed into a tool call
 */
export function certainDepth(parent: Exchange | undefined, guessed: boolean): number {
  let depth = 0;
  let link = guessed;
  for (let up = parent; up !== undefined; up = up.parent) {
    if (!link) depth++;
    link = up.guessed;
  }
  return depth;
}

/** Whether a call failed: answered with a JSON-RPC error, or a tool result flagged `isError`. */
export function callFailed(exchange: Exchange): boolean {
  return exchange.outcome === 'error' || exchange.outcome === 'tool_error';
}

/**
 * The failing call a failed exchange counts as: itself, or, when the call the wire ties it to failed too, that
 * call's (up a chain of certain ties whose calls all failed). A tool call that failed because the sampling request
 * it sent was refused is one failure, not two; a refused sampling request under a call that still succeeded, or
 * one only guessed into a failed call, is a failure of its own. The error counters, `e` and `show --errors` count
 * by it.
 *
 * @example failingCall(samplingExchange) // → the tools/call exchange it was sent for, when that failed too
 */
export function failingCall(exchange: Exchange): Exchange {
  let call = exchange;
  while (call.parent !== undefined && !call.guessed && callFailed(call.parent)) call = call.parent;
  return call;
}

export interface PairerOptions {
  /** `keep` (default) collects children on each exchange; `none` keeps memory flat for pure statistics. */
  children?: 'keep' | 'none';
}

export interface PairingResult {
  /** Answered exchanges, in request order, including server→client ones (see `parent`). */
  exchanges: Exchange[];
  /** Requests that never got a response, in request order. */
  unanswered: Exchange[];
  /** Responses that match no open request. */
  orphans: { response: RpcResponse; ref: MessageRef }[];
  /** Notifications that belong to no request. */
  topLevel: { notification: RpcNotification; ref: MessageRef }[];
}
