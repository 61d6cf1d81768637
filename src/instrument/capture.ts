import type { TransportKind } from '../trace/types.js';
import type { HttpRequestFacts } from './http-context.js';
import type { Implementation } from './types.js';
import type { IncomingExtra, WireLog } from './wire-log.js';

/** A message kept whole for `relatedMessages: 'full'`; `hr` on the performance clock. */
export interface RawRelated {
  hr: number;
  dir: 'in' | 'out';
  message: unknown;
}

/** How a capture ended on the wire; the final outcome (ok / tool_error / error) is decided off the request path. */
export type CaptureEnd = 'answered' | 'cancelled' | 'closed';

/** What a connection knows about itself; read when a capture is processed (it changes only at initialize). */
export interface ConnectionFacts {
  readonly transport: TransportKind | 'unknown';
  readonly client: Implementation | undefined;
  readonly protocolVersion: string | undefined;
  /** From this connection's initialize answer. */
  readonly server: Implementation | undefined;
  transportSessionId(): string | undefined;
}

/** The messages a request caused, created at the first one. */
export interface RelatedCounts {
  progress: number;
  logs: number;
  requests: number;
  notifications: number;
  /** Kept whole only with `relatedMessages: 'full'`. */
  messages: RawRelated[] | undefined;
}

/**
 * What the request path records about one request: references and clock readings only, in a small object.
 * Everything costly — redaction, hashing, user hooks, serialization — happens later, off the request path.
 */
export interface Capture {
  /** performance.now() when the request arrived; epoch ms = performance.timeOrigin + startHr. */
  startHr: number;
  endHr: number;
  id: string | number;
  method: string;
  params: unknown;
  /** The request's progress token, if it asked for progress. */
  token: string | number | undefined;
  /** The response message (result or error), when `end` is `answered`. */
  response: { result?: unknown; error?: { code: number; message: string; data?: unknown } } | undefined;
  end: CaptureEnd;
  related: RelatedCounts | undefined;
  extra: IncomingExtra | undefined;
  http: HttpRequestFacts | undefined;
  conn: ConnectionFacts;
}

/** Where messages and finished captures go: the recorder. */
export interface CaptureQueue {
  /** The request path's side: messages as they pass, paired later. */
  readonly wire: WireLog;
  push(capture: Capture): void;
  /** Instrumentation failed somewhere; the server must not notice. */
  fail(error: unknown): void;
  readonly keepRelated: boolean;
  /** Server name/version learnt from an `initialize` answer or given as an option. */
  serverInfo: Implementation | undefined;
  /** A connection closed (its transport's `onclose`). */
  connectionClosed?(kind: string): void;
}

/**
 * The transport kind from the transport's class name: works for the SDK's own transports (whichever copy of the
 * SDK they came from) without importing them.
 */
export function transportKindOf(transport: object): TransportKind | 'unknown' {
  const name = transport.constructor?.name ?? '';
  if (/stdio/i.test(name)) return 'stdio';
  if (/sse/i.test(name)) return 'sse';
  if (/http/i.test(name)) return 'http';
  if (/memory/i.test(name)) return 'memory';
  return 'unknown';
}
