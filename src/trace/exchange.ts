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
  depth: number;
  /** Notifications and server→client exchanges that belong to this request, in arrival order. */
  children: ExchangeChild[];
  /**
   * Free for whoever consumes the pairing events to hang its own record of the exchange on (replay's script
   * builder does, for every request of a cassette); pairing sets it to undefined and never reads it.
   */
  attached?: unknown;
}

export type ExchangeChild =
  | { kind: 'notification'; notification: RpcNotification; ref: MessageRef; via: Attribution }
  | { kind: 'exchange'; exchange: Exchange; via: Attribution };

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
      depth: number;
    }
  | { kind: 'orphan'; response: RpcResponse; ref: MessageRef }
  | { kind: 'invalid'; reason: string; ref: MessageRef }
  | { kind: 'line'; line: TraceLine; index: number; lineNo: number | undefined }
  | { kind: 'unanswered'; exchange: Exchange };

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
