import { randomUUID } from 'node:crypto';
import type { Capture } from './capture.js';
import { epochMs, isoTime } from './clock.js';
import { bearerToken, checkUser, identityOf } from './identity.js';
import type { SessionTable } from './sessions.js';
import { traceContextOf } from './trace-context.js';
import type {
  HttpFacts,
  Implementation,
  InstrumentOptions,
  RelatedSummary,
  RequestContext,
  RequestEvent,
  UserInfo,
} from './types.js';
import type { RawHeaders, ValuePolicy } from './values.js';

const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';

type Hooks = Pick<
  InstrumentOptions,
  | 'getUser'
  | 'getSessionId'
  | 'release'
  | 'disableParamCapture'
  | 'disableResultCapture'
  | 'disableHeaderCapture'
>;

/**
 * The tool name, prompt name or resource uri a request is about.
 *
 * @example targetOf('tools/call', { name: 'echo', arguments: {} }) // 'echo'
 */
export function targetOf(method: string, params: unknown): string | undefined {
  const p = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
  switch (method) {
    case 'tools/call':
    case 'prompts/get':
      return stringOr(p.name);
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return stringOr(p.uri);
    case 'completion/complete': {
      const ref = (p.ref ?? {}) as Record<string, unknown>;
      return stringOr(ref.name) ?? stringOr(ref.uri);
    }
    default:
      return undefined;
  }
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function implementationOr(value: unknown): Implementation | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { name, version } = value as Record<string, unknown>;
  return typeof name === 'string' ? { name, version: typeof version === 'string' ? version : '' } : undefined;
}

/**
 * Turns a capture into a RequestEvent, off the request path: user hooks, identity, session, redaction and
 * truncation all happen here.
 */
export class EventBuilder {
  private userProblemReported = false;

  constructor(
    private readonly hooks: Hooks,
    private readonly policy: ValuePolicy,
    private readonly sessions: SessionTable,
    private readonly report: (error: Error) => void,
    /** The server name/version known to the recorder (an option, or the last initialize seen). */
    private readonly serverInfo: () => Implementation | undefined,
  ) {}

  /** Synchronous unless a user hook returns a promise (most events cost no promise at all). */
  build(capture: Capture): RequestEvent | Promise<RequestEvent> {
    const facts = this.facts(capture);
    const user = this.hook('getUser', facts.ctx);
    const split = this.hook('getSessionId', facts.ctx);
    if (isThenable(user) || isThenable(split)) {
      return Promise.all([user, split]).then(([u, s]) => this.assemble(capture, facts, u, s));
    }
    return this.assemble(capture, facts, user, split);
  }

  /** What the capture says before any hook runs; `ctx` is what the hooks get. */
  private facts(capture: Capture) {
    const params = capture.params as Record<string, unknown> | undefined;
    const meta = (params?._meta ?? undefined) as Record<string, unknown> | undefined;
    const info = capture.extra?.requestInfo;
    const headers: RawHeaders = capture.http?.headers ?? info?.headers ?? {};
    const url = capture.http?.url ?? info?.url?.href;
    const peerAddress = capture.http?.peerAddress;
    const conn = capture.conn;
    const client =
      implementationOr(meta?.[META_CLIENT_INFO]) ??
      conn.client ??
      (capture.method === 'initialize' ? implementationOr(params?.clientInfo) : undefined);
    const authInfo = capture.extra?.authInfo;
    const transportSessionId = conn.transportSessionId();
    const ctx: RequestContext = { method: capture.method, params, headers, transport: conn.transport };
    if (url !== undefined) ctx.url = url;
    if (peerAddress !== undefined) ctx.peerAddress = peerAddress;
    if (authInfo !== undefined) ctx.authInfo = authInfo;
    if (client !== undefined) ctx.client = client;
    if (transportSessionId !== undefined) ctx.transportSessionId = transportSessionId;
    return { params, meta, headers, url, peerAddress, client, authInfo, transportSessionId, ctx };
  }

  private assemble(
    capture: Capture,
    facts: ReturnType<EventBuilder['facts']>,
    userValue: unknown,
    given: unknown,
  ): RequestEvent {
    const { params, meta, headers, url, peerAddress, authInfo, transportSessionId } = facts;
    const conn = capture.conn;
    const startMs = epochMs(capture.startHr);
    const userAgent = firstOf(headers['user-agent']);
    const user = this.user(userValue);
    const identity = identityOf(user, {
      token: authInfo?.token ?? bearerToken(headers.authorization),
      peerAddress,
      userAgent,
    });
    const split = given === undefined || given === null || given === '' ? undefined : String(given);
    // A stateless server's later requests come without initialize: they belong to the client this caller named.
    const client = facts.client ?? this.sessions.recallClient(identity.key, startMs);
    const sessionId = this.sessions.resolve(identity.key, client, split, startMs);

    const truncated: string[] = [];
    const event: RequestEvent = {
      v: 1,
      type: 'request',
      id: randomUUID(),
      startedAt: isoTime(startMs),
      durationMs: Math.round((capture.endHr - capture.startHr) * 1000) / 1000,
      method: capture.method,
      requestId: capture.id,
      outcome: 'ok',
      related: this.related(capture, truncated),
      sessionId,
      sessionEra: 'initialize',
      transport: conn.transport,
      identity,
    };
    const target = targetOf(capture.method, params);
    if (target !== undefined) event.target = this.policy.text(target);
    if (params !== undefined && this.hooks.disableParamCapture !== true) {
      event.params = this.policy.value(params, 'params', truncated);
    }
    this.outcome(capture, event, truncated);
    if (client !== undefined) event.client = client;
    const protocolVersion =
      conn.protocolVersion ??
      stringOr(meta?.[META_PROTOCOL_VERSION]) ??
      firstOf(headers['mcp-protocol-version']) ??
      stringOr(
        capture.response?.result &&
          (capture.response.result as { protocolVersion?: unknown }).protocolVersion,
      );
    if (protocolVersion !== undefined) event.protocolVersion = protocolVersion;
    const server = conn.server ?? this.serverInfo();
    if (server !== undefined) event.server = server;
    if (this.hooks.release !== undefined) event.release = this.hooks.release;
    if (transportSessionId !== undefined) event.transportSessionId = transportSessionId;
    if (transportSessionId === undefined && stringOr(meta?.[META_PROTOCOL_VERSION]) !== undefined) {
      event.sessionEra = 'stateless';
    }
    if (user !== undefined) event.user = user;
    if (authInfo !== undefined)
      event.auth = { clientId: authInfo.clientId, scopes: [...(authInfo.scopes ?? [])] };
    const http = this.http(capture, headers, url, peerAddress, userAgent);
    if (http !== undefined) event.http = http;
    const trace = traceContextOf(params);
    if (trace !== undefined) {
      if (trace.baggage !== undefined) trace.baggage = this.policy.text(trace.baggage);
      event.traceContext = trace;
    }
    if (truncated.length > 0) event.truncated = truncated;
    return event;
  }

  private outcome(capture: Capture, event: RequestEvent, truncated: string[]): void {
    if (capture.end !== 'answered') {
      event.outcome = capture.end;
      return;
    }
    const { result, error } = capture.response ?? {};
    if (error !== undefined) {
      event.outcome = 'error';
      event.error = { code: error.code, message: this.policy.text(String(error.message)) };
      if (error.data !== undefined && this.hooks.disableResultCapture !== true) {
        event.error.data = this.policy.value(error.data, 'error.data', truncated);
      }
      return;
    }
    const isError = capture.method === 'tools/call' && (result as { isError?: unknown })?.isError === true;
    event.outcome = isError ? 'tool_error' : 'ok';
    if (capture.method === 'tools/call') event.isError = isError;
    if (result !== undefined && this.hooks.disableResultCapture !== true) {
      event.result = this.policy.value(result, 'result', truncated);
    }
  }

  private related(capture: Capture, truncated: string[]): RelatedSummary {
    const summary: RelatedSummary = {
      progress: capture.related?.progress ?? 0,
      logs: capture.related?.logs ?? 0,
      requests: capture.related?.requests ?? 0,
      notifications: capture.related?.notifications ?? 0,
    };
    const kept = capture.related?.messages;
    if (kept !== undefined && kept.length > 0) {
      const cut: string[] = [];
      summary.messages = kept.map((item) => ({
        t: isoTime(epochMs(item.hr)),
        dir: item.dir,
        message: this.policy.value(item.message, 'related', cut),
      }));
      if (cut.length > 0) truncated.push('related');
    }
    return summary;
  }

  private http(
    capture: Capture,
    headers: RawHeaders,
    url: string | undefined,
    peerAddress: string | undefined,
    userAgent: string | undefined,
  ): HttpFacts | undefined {
    if (capture.http === undefined && capture.extra?.requestInfo === undefined) return undefined;
    const facts: HttpFacts = {};
    if (capture.http?.method !== undefined) facts.method = capture.http.method;
    if (url !== undefined) facts.url = this.policy.text(url);
    if (peerAddress !== undefined) facts.peerAddress = peerAddress;
    if (this.hooks.disableHeaderCapture !== true) {
      facts.headers = this.policy.headers(headers);
      if (userAgent !== undefined) facts.userAgent = this.policy.text(userAgent);
    }
    return facts;
  }

  /** What getUser returned, checked: a user without an id is ignored and reported once. */
  private user(value: unknown): UserInfo | undefined {
    const checked = checkUser(value);
    if (checked === undefined) return undefined;
    if ('user' in checked) return checked.user;
    if (!this.userProblemReported) {
      this.userProblemReported = true;
      this.report(new Error(checked.problem));
    }
    return undefined;
  }

  /** Runs a user hook; a throw (or a rejected promise) is reported and counts as "no answer". */
  private hook(name: 'getUser' | 'getSessionId', ctx: RequestContext): unknown {
    const fn = this.hooks[name];
    if (fn === undefined) return undefined;
    const failed = (err: unknown) => {
      this.report(new Error(`${name} threw: ${(err as Error)?.message ?? String(err)}`, { cause: err }));
      return undefined;
    };
    try {
      const value: unknown = fn(ctx);
      return isThenable(value) ? Promise.resolve(value).catch(failed) : value;
    } catch (err) {
      return failed(err);
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function firstOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
