import { TapedeckError } from '../base/errors.js';
import { ANSWER_TIMEOUT_MS } from '../base/timeouts.js';
import type { RpcId } from '../trace/jsonrpc.js';
import type { Json } from '../trace/types.js';

/** `streamable`: Streamable HTTP (POST, SSE or JSON answers, optional GET stream). `sse`: the legacy HTTP+SSE pair. */
export type UpstreamTransport = 'streamable' | 'sse';
export const UPSTREAM_TRANSPORTS: readonly UpstreamTransport[] = ['streamable', 'sse'];

/** A message the upstream server sent, as it came off the wire. */
export interface UpstreamMessage {
  raw: Json;
  /** The exact JSON text (one line: multi-line SSE data is re-encoded compactly). */
  text: string;
  /** Which HTTP stream it came on: `post-N` (the answer to the Nth POST), `get-N`, or `sse` (legacy). */
  stream: string;
  eventId: string | undefined;
  /** The session it belongs to (Mcp-Session-Id, or the legacy endpoint's sessionId), when there is one. */
  conn: string | undefined;
  atMs: number;
}

/** A message that went to the upstream server (a POST body), reported once the session it belongs to is known. */
export interface SentMessage {
  raw: Json;
  text: string;
  stream: string;
  conn: string | undefined;
  atMs: number;
}

/** HTTP envelope facts for a trace's `http` lines: `in` = a request we sent, `out` = the server's answer head. */
export interface HttpEnvelope {
  dir: 'in' | 'out';
  stream: string;
  conn: string | undefined;
  method?: string;
  url?: string;
  status?: number;
  headers: Record<string, string>;
  atMs: number;
}

/** What the client noticed on its own: reconnections, a refused GET stream, a stream that went away. */
export type UpstreamEvent =
  | { kind: 'connect'; url: string; conn: string | undefined }
  | { kind: 'no-standalone-stream'; status: number }
  | { kind: 'reconnect'; stream: string; lastEventId: string | undefined; delayMs: number; attempt: number }
  | { kind: 'stream-lost'; stream: string; message: string }
  | { kind: 'upstream-error'; stream: string | undefined; message: string }
  | { kind: 'closed'; reason: string };

export interface UpstreamHooks {
  /** A server message. A returned promise holds the stream until it settles (backpressure for slow writers). */
  onMessage: (message: UpstreamMessage) => void | Promise<void>;
  onSent?: ((message: SentMessage) => void) | undefined;
  onEnvelope?: ((envelope: HttpEnvelope) => void) | undefined;
  onEvent?: ((event: UpstreamEvent) => void) | undefined;
}

export interface UpstreamOptions extends UpstreamHooks {
  url: string;
  transport?: UpstreamTransport | undefined;
  /** Sent on every request (e.g. Authorization). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch | undefined;
  timeouts?: Partial<UpstreamTimeouts> | undefined;
}

export interface UpstreamTimeouts {
  /** How long the server may take to answer a request with its status and headers. */
  headersMs: number;
  /** How long one POST's answer (a whole SSE stream, resumptions included) may take. */
  answerMs: number;
  /** Legacy SSE: how long the `endpoint` event may take after the stream opened. */
  endpointMs: number;
  /** How long the closing DELETE may take. */
  closeMs: number;
  /** How long a POST waits for the one before it to be accepted, so the server sees messages in order. */
  orderMs: number;
  /** The reconnection delay when the server sent no `retry:`. */
  reconnectMs: number;
}

export const UPSTREAM_DEFAULTS = {
  transport: 'streamable' as UpstreamTransport,
  timeouts: {
    headersMs: ANSWER_TIMEOUT_MS,
    answerMs: 10 * 60_000,
    endpointMs: 10_000,
    closeMs: 3000,
    orderMs: 250,
    reconnectMs: 1000,
  } as UpstreamTimeouts,
  /** Reconnection attempts in a row for one dropped stream. */
  maxReconnects: 3,
  /** How much of a non-JSON error body an error message quotes. */
  excerptChars: 200,
} as const;

/** How one POST ended. */
export interface SendResult {
  status: number;
  stream: string;
  /**
   * Requests in the POST whose answer stream ended without their response (and could not be resumed). Always empty
   * in legacy SSE mode, where answers come on the session's stream, not the POST's.
   */
  unanswered: RpcId[];
}

export type UpstreamErrorKind = 'unreachable' | 'http' | 'timeout' | 'protocol' | 'closed';

/**
 * A local failure talking to the upstream server: it never crossed the wire as JSON-RPC. (A 4xx whose body is a
 * JSON-RPC error is not this: it is delivered as a message.)
 */
export class UpstreamError extends TapedeckError {
  constructor(
    readonly kind: UpstreamErrorKind,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super('input', message, options);
  }
}

/** The parts of the two client implementations callers use. */
export interface Upstream {
  readonly transport: UpstreamTransport;
  readonly url: string;
  /** The session (Mcp-Session-Id, or the legacy endpoint's sessionId) once known. */
  readonly sessionId: string | undefined;
  /** Legacy SSE: opens the stream and waits for the endpoint. Streamable HTTP: nothing to do. */
  start(): Promise<void>;
  /**
   * POSTs one message (or batch) — `text`, when given, is the exact body — and resolves once its answer is over.
   * Rejects with an UpstreamError when the server cannot be reached or answers with an HTTP error that is not
   * JSON-RPC.
   */
  send(message: Json, options?: { text?: string; atMs?: number }): Promise<SendResult>;
  /** Ends the session (DELETE for Streamable HTTP) and drops every stream. */
  close(): Promise<void>;
  /** Resolves when the session is over: closed by us, or (legacy SSE) its stream is gone for good. */
  readonly closed: Promise<string>;
}
