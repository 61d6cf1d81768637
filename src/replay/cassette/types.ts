import type { ExchangeOutcome } from '../../trace/exchange.js';
import type { JsonObject, RpcRequest } from '../../trace/jsonrpc.js';
import type { RecordedHttpAnswer } from './http-answers.js';

/**
 * A cassette: one server's recording turned into what replay plays back. Every client request becomes an exchange
 * with a script — the server messages that belonged to it in recorded order (progress, logs, server→client requests
 * with the client's recorded answers), then the response. Server messages that belonged to no request are
 * *unsolicited*, anchored to the client message that preceded them. Attribution is the pairing module's.
 */

/** A server message inside a script, or an unsolicited one. */
export interface ServerMessage {
  kind: 'notification' | 'request';
  method: string;
  /** The message as recorded. */
  message: JsonObject;
  /** The client's recorded answer to a server→client request; undefined when none was recorded. */
  answer: JsonObject | undefined;
  /** Recorded ms from the anchor (the exchange's request for a script step) to this message. */
  atMs: number;
  /** Recorded ms from the anchor to the client's answer. */
  answeredAtMs: number | undefined;
  /** Position in the trace; merges scripts and unsolicited messages back into recorded order. */
  order: number;
  lineNo: number | undefined;
  /** The connection it travelled on (an HTTP recording's MCP session); undefined when the trace names none. */
  conn?: string | undefined;
  /** Trace position of the client's answer (verify keeps the recorded order of answers and requests). */
  answerOrder?: number | undefined;
  /** When the client answered, epoch ms. */
  answeredAt?: number | undefined;
}

/** 2026-era multi-round-trip: which round of which chain an exchange is (round 0 got the first `input_required`). */
export interface MrtrRound {
  /** Ordinal of the chain's first exchange. */
  chain: number;
  round: number;
  /** Ordinal of the round before, whose `input_required` this one answers. */
  previous: number | undefined;
}

/** One recorded client request and everything the server did about it. */
export interface CassetteExchange {
  /** Position in the server's recorded order of client requests (0, 1, 2 …). */
  ordinal: number;
  method: string;
  request: RpcRequest;
  /** The request as recorded. */
  message: JsonObject;
  /** In recorded order; most requests have none, and then share one frozen empty list. */
  script: readonly ServerMessage[];
  /** The recorded response; undefined for `subscriptions/listen` and requests the recording never saw answered. */
  response: JsonObject | undefined;
  /** Recorded ms from request to response. */
  respondedAtMs: number | undefined;
  /** Trace position of the response. */
  responseOrder: number | undefined;
  outcome: ExchangeOutcome;
  /** The client cancelled it (`notifications/cancelled`). */
  cancelled: boolean;
  conn: string | undefined;
  /** Trace position of the request (shared with ClientNotification.order: re-sending a client side in order). */
  order: number;
  lineNo: number | undefined;
  /** Recorded request time, epoch ms. */
  time: number | undefined;
  mrtr: MrtrRound | undefined;
}

/** The client message an unsolicited server message followed. */
export type Anchor =
  | { kind: 'start' }
  | { kind: 'request'; exchange: number }
  | { kind: 'notification'; notification: number }
  /** The client's answer to unsolicited server→client request number `unsolicited`. */
  | { kind: 'answer'; unsolicited: number };

export interface UnsolicitedMessage extends ServerMessage {
  index: number;
  /** `atMs` counts from the anchor. */
  anchor: Anchor;
  /** Ordinal of the `subscriptions/listen` exchange whose subscription carried it (2026 era). */
  subscription: number | undefined;
}

/** A client notification (`notifications/initialized`, `cancelled`, `roots/list_changed` …): kept, never answered. */
export interface ClientNotification {
  index: number;
  method: string;
  message: JsonObject;
  time: number | undefined;
  order: number;
  lineNo: number | undefined;
  /** The MCP session it was sent in (HTTP recordings hold several); undefined when the trace names none. */
  conn?: string | undefined;
}

export interface Cassette {
  /** The server this cassette replays (undefined when the trace names none). */
  server: string | undefined;
  /** Every server the trace holds, in order of first appearance. */
  servers: readonly string[];
  /** Client requests in recorded order. */
  exchanges: CassetteExchange[];
  unsolicited: UnsolicitedMessage[];
  notifications: ClientNotification[];
  /** What could not be used: responses to unknown ids, invalid messages. */
  warnings: string[];
  /** An HTTP recording's answers on paths that carried no MCP message (OAuth metadata probes …). */
  httpAnswers?: readonly RecordedHttpAnswer[];
  /**
   * An HTTP recording's placeholder connections and the MCP session each turned out to be: an `initialize` travels
   * before its session has an id, on a connection named after its HTTP exchange (`h9` → `9a18e105-…`).
   */
  sessionAliases?: Readonly<Record<string, string>>;
}
