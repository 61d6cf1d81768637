/**
 * What production recording produces and what it is told: the request event, the context handed to user hooks,
 * the sink contract and the options of `instrument(server, options)`.
 */
import type { RedactConfig } from '../redact/types.js';
import type { Json, TransportKind } from '../trace/types.js';

/**
 * How a request ended. `tool_error` is a `tools/call` answered with `isError: true` (the tool ran and said it
 * failed); `error` is a JSON-RPC error response (the request itself failed: unknown tool, bad params, a thrown
 * McpError); `cancelled` the client cancelled it; `closed` the connection closed before an answer.
 */
export type RequestOutcome = 'ok' | 'tool_error' | 'error' | 'cancelled' | 'closed';

/** Which link of the identity chain named the caller. */
export type IdentityKind = 'user' | 'token' | 'address' | 'process';

/** What `getUser` returns. A user without an `id` is ignored (and reported once through `onError`). */
export interface UserInfo {
  id: string;
  name?: string;
  email?: string;
  traits?: Record<string, Json>;
}

/** A name and version, as `clientInfo` / `serverInfo` carry them. */
export interface Implementation {
  name: string;
  version: string;
}

/** A message that belongs to a request (progress, a log line, a server→client request or its answer). */
export interface RelatedMessage {
  t: string;
  /** `out` = server→client, `in` = client→server. */
  dir: 'in' | 'out';
  message: Json;
}

/** The messages a request caused while it ran: counted always, kept whole with `relatedMessages: 'full'`. */
export interface RelatedSummary {
  progress: number;
  logs: number;
  /** Server→client requests (sampling, elicitation, roots/list). */
  requests: number;
  /** Other notifications sent on the request's behalf. */
  notifications: number;
  messages?: RelatedMessage[];
}

/** HTTP facts of the request that carried a message (headers redacted). */
export interface HttpFacts {
  method?: string;
  url?: string;
  headers?: Record<string, string | string[]>;
  peerAddress?: string;
  userAgent?: string;
}

/** W3C trace context found in `params._meta`. */
export interface TraceContextFields {
  traceparent: string;
  tracestate?: string;
  baggage?: string;
}

/** One client request a server handled, as the recorder reports it. */
export interface RequestEvent {
  v: 1;
  type: 'request';
  /** Unique per event. */
  id: string;
  startedAt: string;
  durationMs: number;
  method: string;
  /** The tool name, prompt name or resource uri the request is about. */
  target?: string;
  requestId: string | number;
  outcome: RequestOutcome;
  params?: Json;
  result?: Json;
  /** `result.isError` of a tools/call, kept apart from a JSON-RPC error. */
  isError?: boolean;
  error?: { code: number; message: string; data?: Json };
  related: RelatedSummary;
  client?: Implementation;
  protocolVersion?: string;
  server?: Implementation;
  release?: string;
  /** The recorder's session: identity + client, split by `getSessionId`, ended after 30 minutes idle. */
  sessionId: string;
  /** The transport's own session id (Streamable HTTP `Mcp-Session-Id`, SSE session). */
  transportSessionId?: string;
  /**
   * The protocol era of the session: `initialize` (a connection opened by `initialize`, the session id its own or
   * the transport's), or `stateless` (2026-07-28: every request names its protocol version and client in `_meta`,
   * no `Mcp-Session-Id`; `sessionId` is the one the recorder keyed from identity, client and idle time).
   */
  sessionEra: 'initialize' | 'stateless';
  transport: TransportKind | 'unknown';
  identity: { kind: IdentityKind; key: string };
  user?: UserInfo;
  auth?: { clientId: string; scopes: string[] };
  http?: HttpFacts;
  traceContext?: TraceContextFields;
  /** Fields cut to `maxValueLength` (their long strings end with a `…[truncated N chars]` mark). */
  truncated?: string[];
}

/** What `getUser` and `getSessionId` are given. Headers here are as received: this stays in your process. */
export interface RequestContext {
  method: string;
  params: unknown;
  headers: Record<string, string | string[] | undefined>;
  url?: string;
  peerAddress?: string;
  authInfo?: { token: string; clientId: string; scopes: string[]; extra?: Record<string, unknown> };
  client?: Implementation;
  transport: TransportKind | 'unknown';
  transportSessionId?: string;
}

/**
 * Where events go. `write` gets batches in order, one at a time; a rejection is reported through `onError` and
 * the batch is counted as dropped.
 */
export interface EventSink {
  readonly name: string;
  write(events: readonly RequestEvent[]): Promise<void>;
  /** A session ended (idle past the session timeout). */
  sessionEnded?(sessionId: string): void | Promise<void>;
  /** Release resources (close files, push buffered spans). The sink must accept writes again afterwards. */
  shutdown?(): Promise<void>;
}

/** A tapedeck collector: batched HTTP ingest with a write token. */
export interface CollectorDestination {
  type: 'collector';
  /** The collector's base URL, e.g. `http://127.0.0.1:7420`. */
  url: string;
  token: string;
  /** Tries per batch, the first included (default 4). */
  attempts?: number;
  /** First retry delay in ms, doubled per try (default 500). */
  backoffMs?: number;
}

/** A trace file (JSONL v1) per session under `dir`. */
export interface FilesDestination {
  type: 'files';
  dir: string;
  /** Rotate a session's file past this many bytes (FileSink's default otherwise). */
  maxBytes?: number;
  /** Session files open at once (default 64); past it the least recently written is ended. */
  maxOpenFiles?: number;
}

/** What OTLP spans carry beyond the attributes: nothing, tool arguments, or arguments and results. */
export type OtlpContent = 'none' | 'arguments' | 'all';

/** OpenTelemetry spans over OTLP/HTTP (JSON), following the MCP semantic conventions. */
export interface OtlpDestination {
  type: 'otlp';
  /** The traces endpoint, e.g. `http://127.0.0.1:4318/v1/traces`. */
  url: string;
  headers?: Record<string, string>;
  content?: OtlpContent;
  /** `service.name` (default: the server's name). */
  serviceName?: string;
}

/** Any object implementing EventSink. */
export interface CustomDestination {
  type: 'sink';
  sink: EventSink;
}

export type Destination = CollectorDestination | FilesDestination | OtlpDestination | CustomDestination;

/** Whether related messages are only counted or also kept whole. */
export type RelatedCapture = 'count' | 'full';

export interface InstrumentOptions {
  /**
   * Where events go: one destination or several. Default: a trace file per session under `$TAPEDECK_DIR`, else
   * `~/.tapedeck/traces` (`{ type: 'files', dir }`).
   */
  to?: Destination | Destination[];
  getUser?: (ctx: RequestContext) => UserInfo | undefined | Promise<UserInfo | undefined>;
  getSessionId?: (ctx: RequestContext) => string | undefined | Promise<string | undefined>;
  /** Your release (a version, a commit): on every event. */
  release?: string;
  /** Server name and version when no `initialize` passes through a connection (stateless HTTP). */
  serverInfo?: Implementation;
  disableParamCapture?: boolean;
  disableResultCapture?: boolean;
  disableHeaderCapture?: boolean;
  /** More header names to hide; credential headers (authorization, cookie, x-api-key, …) are always hidden. */
  redactHeaders?: string[];
  /** Redaction of params, results and header values (default: the built-in rules, marker mode). */
  redaction?: RedactConfig;
  /** Strings longer than this are cut and marked (default 100 000). */
  maxValueLength?: number;
  relatedMessages?: RelatedCapture;
  /** Change an event or return null to drop it; runs after redaction, before any sink. */
  sanitizeEvent?: (event: RequestEvent) => RequestEvent | null;
  maxBatchSize?: number;
  /** ms between uploads of what is queued (default 5000). */
  flushInterval?: number;
  /** ms an upload may take (default 10 000). */
  uploadTimeout?: number;
  /** Requests waiting to be processed or uploaded; past it the oldest are dropped and counted. */
  maxQueue?: number;
  /** ms without a request after which a session ends (default 30 minutes). */
  sessionIdleTimeout?: number;
  onError?: (error: Error) => void;
  /**
   * Finish the recording when the process ends — queued events written, every session's file given its end line —
   * on `beforeExit`, SIGINT / SIGTERM / SIGHUP (the host's own handlers and exit code kept) and `exit`
   * (default true). Turn it off only when the host calls `shutdown()` itself before every exit.
   */
  finishOnExit?: boolean;
}

/** What a recorder has done so far. */
export interface RecorderStats {
  /** Requests answered (or cancelled / closed) on instrumented connections. */
  captured: number;
  /** Events handed to every sink. */
  delivered: number;
  /** Lost because the queue was full (oldest first). */
  droppedQueueFull: number;
  /** Lost because a sink kept failing. */
  droppedUploadFailed: number;
  /** Dropped by `sanitizeEvent`. */
  sanitized: number;
  /** Waiting now. */
  queued: number;
  /** Uploads (batches written to a sink). */
  uploads: number;
}
