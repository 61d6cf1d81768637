import type { TransportKind } from '../trace/types.js';
import type { Capture, CaptureEnd, CaptureQueue, ConnectionFacts, RelatedCounts } from './capture.js';
import type { HttpRequestFacts } from './http-context.js';
import type { Implementation } from './types.js';
import type { IncomingExtra, WireTap } from './wire-log.js';

type Id = string | number;
type Message = {
  id?: Id;
  method?: string;
  params?: { _meta?: { progressToken?: Id }; [key: string]: unknown };
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

/**
 * Follows one connection's messages: pairs each client request with its answer, and counts (or keeps) what the
 * server sent on the request's behalf, then hands finished requests to the queue. It runs off the request path,
 * on the messages the WireLog kept (with the clock reading taken as each one passed).
 */
export class ConnectionTap implements ConnectionFacts, WireTap {
  client: Implementation | undefined;
  protocolVersion: string | undefined;
  server: Implementation | undefined;
  private readonly pending = new Map<Id, Capture>();
  /** Server→client requests by their id, to attribute the client's answers. */
  private readonly outRequests = new Map<Id, Capture>();
  /** Requests that asked for progress, by token: progress sent without relatedRequestId still finds its request. */
  private readonly tokens = new Map<Id, Capture>();

  constructor(
    private readonly queue: CaptureQueue,
    readonly transport: TransportKind | 'unknown',
    private readonly sessionIdOf: () => string | undefined,
  ) {}

  transportSessionId(): string | undefined {
    return this.sessionIdOf();
  }

  /** A message from the client, read at `hr` on the performance clock. */
  incoming(
    message: Message,
    extra: IncomingExtra | undefined,
    hr: number,
    http: HttpRequestFacts | undefined,
  ): void {
    const method = message.method;
    const id = message.id;
    if (method !== undefined) {
      if (id !== undefined) this.request(message, method, id, extra, hr, http);
      else if (method === 'notifications/cancelled') this.cancelled(message, hr);
      return;
    }
    if (id === undefined || this.outRequests.size === 0) return;
    const owner = this.outRequests.get(id);
    if (owner === undefined) return;
    this.outRequests.delete(id);
    owner.related?.messages?.push({ hr, dir: 'in', message });
  }

  /** A message to the client, with the relatedRequestId the SDK passed to `send`. */
  outgoing(message: Message, relatedRequestId: Id | undefined, hr: number): void {
    const method = message.method;
    if (method === undefined) {
      const id = message.id;
      if (id !== undefined) this.answered(message, id, hr);
      return;
    }
    let owner = relatedRequestId === undefined ? undefined : this.pending.get(relatedRequestId);
    if (owner === undefined && method === 'notifications/progress' && this.tokens.size > 0) {
      const token = (message.params as { progressToken?: Id } | undefined)?.progressToken;
      if (token !== undefined) owner = this.tokens.get(token);
    }
    if (owner === undefined) return;
    const related = this.relatedOf(owner);
    const id = message.id;
    if (id !== undefined) {
      related.requests += 1;
      this.outRequests.set(id, owner);
    } else if (method === 'notifications/progress') related.progress += 1;
    else if (method === 'notifications/message') related.logs += 1;
    else related.notifications += 1;
    related.messages?.push({ hr, dir: 'out', message });
  }

  /** The connection closed: requests still open end as `closed`. */
  closed(hr: number): void {
    for (const capture of this.pending.values()) this.finish(capture, 'closed', hr);
    this.pending.clear();
    this.outRequests.clear();
    this.tokens.clear();
  }

  private relatedOf(capture: Capture): RelatedCounts {
    capture.related ??= {
      progress: 0,
      logs: 0,
      requests: 0,
      notifications: 0,
      messages: this.queue.keepRelated ? [] : undefined,
    };
    return capture.related;
  }

  private request(
    message: Message,
    method: string,
    id: Id,
    extra: IncomingExtra | undefined,
    hr: number,
    http: HttpRequestFacts | undefined,
  ): void {
    const params = message.params;
    const token = params?._meta?.progressToken;
    const capture: Capture = {
      startHr: hr,
      endHr: 0,
      id,
      method,
      params,
      token,
      response: undefined,
      end: 'answered',
      related: undefined,
      extra,
      http,
      conn: this,
    };
    if (method === 'initialize' && params !== undefined) {
      const info = params.clientInfo as Implementation | undefined;
      if (info !== undefined) this.client = info;
    }
    // A client that reuses an id while the first is open: the first one ends without an answer of its own.
    const previous = this.pending.get(id);
    if (previous !== undefined) this.finish(previous, 'closed', hr);
    this.pending.set(id, capture);
    if (token !== undefined) this.tokens.set(token, capture);
  }

  private answered(message: Message, id: Id, hr: number): void {
    const capture = this.pending.get(id);
    if (capture === undefined) return;
    this.pending.delete(id);
    capture.response = message;
    if (capture.method === 'initialize' && message.result !== undefined) {
      const { protocolVersion, serverInfo } = message.result;
      if (typeof protocolVersion === 'string') this.protocolVersion = protocolVersion;
      if (serverInfo !== undefined) {
        this.server = serverInfo as Implementation;
        this.queue.serverInfo = this.server;
      }
    }
    this.finish(capture, 'answered', hr);
  }

  private cancelled(message: Message, hr: number): void {
    const requestId = message.params?.requestId as Id | undefined;
    if (requestId === undefined) return;
    const capture = this.pending.get(requestId);
    if (capture === undefined) return;
    this.pending.delete(requestId);
    this.finish(capture, 'cancelled', hr);
  }

  private finish(capture: Capture, end: CaptureEnd, hr: number): void {
    capture.endHr = hr;
    capture.end = end;
    if (capture.token !== undefined && this.tokens.get(capture.token) === capture)
      this.tokens.delete(capture.token);
    if (capture.related !== undefined && capture.related.requests > 0) {
      for (const [key, owner] of this.outRequests) if (owner === capture) this.outRequests.delete(key);
    }
    this.queue.push(capture);
  }
}
