import { type ClientRequest, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { request as requestTls } from 'node:https';
import type { EventSourceMessage } from 'eventsource-parser';
import type { Json } from '../../trace/types.js';
import { parseJson } from '../fault-gate.js';
import { type ActiveExchange, answer, type ForwardContext, proxyErrorBody } from './context.js';
import { EndpointHold, rewriteEndpoint } from './endpoint.js';
import { FaultedSse, sendFaultedJson } from './faults.js';
import { bodyKind, forwardableHeaders, traceHeaders } from './headers.js';
import { type HttpExchangeRecorder, legacySessionOf } from './recorder.js';
import { shownUrl, upstreamPath } from './url.js';

/** How long an event stream's head may wait for its first event before it is sent alone. */
const HEAD_DELAY_MS = 20;

/** Error codes that mean the upstream could not be reached at all (as opposed to failing on the way). */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EAI_AGAIN',
]);

/**
 * One client request on its way through the proxy. The request body is forwarded chunk by chunk as it arrives
 * (a full upstream socket pauses the client), the answer streams back the same way (a slow client pauses the
 * upstream), and the recorder sees copies of both. An upstream that cannot be reached gets a 502 with a JSON-RPC
 * error naming it; a client that goes away aborts the upstream request; an upstream that dies mid-answer cuts the
 * client's response too (ending it cleanly would pass a cut-off stream off as a whole one). Each of those is an
 * `event` line in the trace; an answer the proxy gives itself (the 502, a 503 at shutdown) is also recorded as
 * the client received it, marked `producedBy: 'tapedeck'`.
 */
export class ProxiedExchange implements ActiveExchange {
  readonly done: Promise<void>;
  private settle: () => void = () => {};
  private finished = false;
  private bodyEnded = false;
  private body: Json | undefined;
  /** A 502 waiting for the request body to end, so it can name the request's id. */
  private pendingFailure: (() => void) | undefined;
  private hold: EndpointHold | undefined;
  /** Made by the first queued recording task; every later one runs after it. */
  private record!: HttpExchangeRecorder;
  /** Recording runs at once, not queued (a legacy event stream whose first event must be read to release it). */
  private direct = false;
  /** The request is MCP traffic: recorded message by message, not only by its envelope. */
  private readonly mcp: boolean;
  private readonly method: string;
  private readonly target: string;
  private upReq: ClientRequest | undefined;
  /** The session its messages belong to, as faults file their decisions ('' before there is one). */
  private scope: string;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly ctx: ForwardContext,
  ) {
    this.done = new Promise((resolve) => {
      this.settle = resolve;
    });
    this.method = req.method ?? 'GET';
    this.target = upstreamPath(req.url ?? '/', ctx.upstream);
    const headers = req.headers;
    // MCP traffic is recorded message by message; anything else (OAuth, metadata) only by its envelope.
    this.mcp =
      ctx.mcpPaths.has(this.target.split('?', 1)[0]!) ||
      headers['mcp-session-id'] !== undefined ||
      headers['mcp-protocol-version'] !== undefined ||
      (headers.accept ?? '').includes('text/event-stream') ||
      // A legacy POST endpoint the proxy has not seen announced (it started mid-session).
      (/[?&]session_?[iI]d=/.test(this.target) && bodyKind(headers['content-type']) === 'json');
    const session = headers['mcp-session-id'];
    this.scope = (Array.isArray(session) ? session[0] : session) ?? legacySessionOf(this.target) ?? '';
  }

  /** Records, after the bytes have moved on (see RecordQueue), or at once in direct mode. */
  private later(task: () => void): void {
    if (this.direct) task();
    else this.ctx.later.push(task);
  }

  start(): void {
    const { req, res, ctx } = this;
    const headers = forwardableHeaders(req.rawHeaders, ctx.replacedHeaders);
    headers.push('Host', ctx.upstream.host, ...ctx.addHeaders);
    const tls = ctx.upstream.protocol === 'https:';
    const upReq = (tls ? requestTls : request)({
      hostname: ctx.upstream.hostname.replace(/^\[|\]$/g, ''),
      port: ctx.upstream.port === '' ? (tls ? 443 : 80) : Number(ctx.upstream.port),
      method: this.method,
      path: this.target,
      headers,
      agent: ctx.agent,
    });
    this.upReq = upReq;
    // Small writes (an SSE event, a short POST body) go out at once instead of waiting on Nagle's algorithm.
    upReq.on('socket', (socket) => socket.setNoDelay(true));
    ctx.active.add(this);
    this.later(() => {
      this.record = ctx.recorder.exchange(
        {
          method: this.method,
          url: shownUrl(`${ctx.upstream.origin}${this.target}`),
          headers: traceHeaders(req.rawHeaders),
          record: this.mcp ? 'messages' : 'envelope',
        },
        { onSseEvent: (event) => this.onSseEvent(event) },
      );
    });

    // With faults, the requests are decided from a copy of the body (the body itself is forwarded as ever).
    const copy = ctx.faults && this.mcp && this.method === 'POST' ? ([] as Buffer[]) : undefined;
    req.on('data', (chunk: Buffer) => {
      if (!upReq.write(chunk)) req.pause();
      copy?.push(chunk);
      this.later(() => this.record.requestChunk(chunk));
    });
    upReq.on('drain', () => req.resume());
    req.on('end', () => {
      this.bodyEnded = true;
      this.later(() => {
        this.body = this.record.requestEnd();
      });
      upReq.end();
      if (copy) this.decide(Buffer.concat(copy));
      this.pendingFailure?.();
    });
    req.on('error', () => upReq.destroy());
    // On Node 20 the request's `close` fires once its body is read; the response's tells of a client gone away.
    res.on('close', () => {
      if (this.finished || res.writableFinished) return;
      const phase = res.headersSent ? 'response' : 'request';
      this.later(() => this.record.event('client_disconnect', { phase }));
      upReq.destroy();
      this.finish();
    });
    upReq.on('response', (upRes) => this.onResponse(upRes));
    upReq.on('error', (err: NodeJS.ErrnoException) => this.onUpstreamError(err));
  }

  abort(reason: string): void {
    if (this.finished) return;
    this.later(() => this.record.event('aborted', { reason }));
    this.upReq?.destroy();
    this.hold?.release();
    if (this.res.headersSent) this.res.end();
    else {
      // The answer names the request: its body must have been read.
      this.ctx.later.flush();
      const body = proxyErrorBody(requestId(this.body), `tapedeck: the recording proxy is ${reason}`);
      const headers = answer(this.res, 503, body);
      this.later(() => this.record.localAnswer(503, headers, body));
    }
    this.finish();
  }

  /** Faults: decides the requests of a POST body; a disconnect cuts the client's connection at once. */
  private decide(body: Buffer): void {
    const raw = parseJson(body);
    if (raw === undefined || this.ctx.faults === undefined) return;
    const { records, disconnect } = this.ctx.faults.arrive(this.scope, raw);
    for (const record of records) {
      this.later(() => this.record.event('fault', { ...record }));
      this.ctx.onFault?.(record);
    }
    if (!disconnect) return;
    this.upReq?.destroy();
    this.res.destroy();
    this.finish();
  }

  private onResponse(upRes: IncomingMessage): void {
    const { res } = this;
    const status = upRes.statusCode ?? 502;
    const sse = bodyKind(upRes.headers['content-type']) === 'sse';
    const gate = this.mcp ? this.ctx.faults : undefined;
    if (gate && !sse && this.method === 'POST' && gate.expecting(this.scope)) {
      this.onFaultedJson(upRes, status);
      return;
    }
    if (asksForOAuth(status, upRes.headers['www-authenticate'], this.target)) {
      this.ctx.notice({ kind: 'oauth', status, path: this.target.split('?', 1)[0]! });
    }
    // Only a GET event stream can carry a legacy `endpoint` event, and only one whose events are read can be
    // released at its first event: such a stream is recorded as it comes, since its first event must be read
    // before anything is passed on. Rewriting the event changes the body's length.
    const mayHold = this.method === 'GET' && sse && status === 200 && this.mcp;
    if (mayHold) {
      this.ctx.later.flush();
      this.direct = true;
    }
    this.later(() => this.record.response(status, traceHeaders(upRes.rawHeaders)));
    const holding = mayHold && this.record.readsEvents;
    const headers = forwardableHeaders(
      this.oauthAnswer(status, upRes.rawHeaders),
      holding ? ['content-length'] : [],
    );
    if (upRes.statusMessage !== undefined) res.writeHead(status, upRes.statusMessage, headers);
    else res.writeHead(status, headers);
    // An event stream may stay quiet for minutes: the client must see the head soon, not only with the first
    // event. Most answers' first event follows at once, though, and then goes out in the same packet as the head.
    let headTimer: NodeJS.Timeout | undefined;
    if (sse) {
      headTimer = setTimeout(() => {
        if (!res.destroyed) res.flushHeaders();
      }, HEAD_DELAY_MS).unref();
    }
    // Whatever the upstream hands over at once (an event, the end of the answer) leaves in one write. The stream
    // tells of its end one tick after its last chunk, so the cork holds for two.
    let corked = false;
    const uncork = () => {
      corked = false;
      res.uncork();
    };
    const uncorkNextTick = () => process.nextTick(uncork);
    const write = (chunk: Buffer) => {
      if (!corked) {
        corked = true;
        res.cork();
        process.nextTick(uncorkNextTick);
      }
      return res.write(chunk);
    };
    const hold = holding ? new EndpointHold(write, this.ctx.holdBytes) : undefined;
    this.hold = hold;
    const pass = (chunk: Buffer) => (hold ? hold.push(chunk) : write(chunk));
    // With faults every event stream is read event by event: an answer may come on any stream of its session.
    const faulted = gate && sse ? new FaultedSse(gate, () => this.scope, pass, gate.scheduler) : undefined;

    upRes.on('data', (chunk: Buffer) => {
      clearTimeout(headTimer);
      const more = faulted ? faulted.push(chunk) : pass(chunk);
      this.later(() => this.record.responseChunk(chunk));
      if (!more) upRes.pause();
    });
    res.on('drain', () => upRes.resume());
    upRes.on('end', () => {
      clearTimeout(headTimer);
      if (this.finished) return;
      const close = () => {
        if (this.finished) return;
        hold?.release();
        res.end();
        this.later(() => this.record.responseEnd());
        this.finish();
      };
      if (faulted) void faulted.end().then(close);
      else close();
    });
    const cut = (code: string, message: string) => {
      clearTimeout(headTimer);
      if (this.finished) return;
      this.later(() => this.record.event('upstream_error', { phase: 'response', error: code, message }));
      hold?.release();
      res.destroy();
      this.finish();
    };
    upRes.on('error', (err: NodeJS.ErrnoException) => cut(err.code ?? 'EUNKNOWN', err.message));
    upRes.on('close', () => {
      if (!upRes.complete) cut('ECONNRESET', 'the upstream closed the connection mid-answer');
    });
  }

  private onUpstreamError(err: NodeJS.ErrnoException): void {
    if (this.finished) return;
    const code = err.code ?? 'EUNKNOWN';
    if (this.res.headersSent) {
      const message = err.message;
      this.later(() => this.record.event('upstream_error', { phase: 'response', error: code, message }));
      this.res.destroy();
      this.finish();
      return;
    }
    const upstream = this.ctx.upstreamShown;
    const why = UNREACHABLE.has(code) ? 'unreachable' : 'failed';
    const detail = err.message === '' || err.message === code ? '' : ` (${err.message})`;
    const message = `upstream ${upstream} ${why}: ${code}${detail}`;
    this.later(() =>
      this.record.event('upstream_error', { phase: 'request', error: code, message, status: 502 }),
    );
    // The answer names the request it fails, so it waits for the body (the upstream may refuse before reading it).
    this.pendingFailure = () => {
      this.pendingFailure = undefined;
      if (this.finished) return;
      this.ctx.later.flush();
      const body = proxyErrorBody(requestId(this.body), message, { upstream, code });
      const headers = answer(this.res, 502, body);
      // The client got an answer: the trace holds it as sent, so the request does not read as unanswered.
      this.later(() => this.record.localAnswer(502, headers, body));
      this.finish();
    };
    if (this.bodyEnded) this.pendingFailure();
    else this.req.resume();
  }

  /** With the OAuth gateway: the answer's headers as the client gets them, and its `oauth` event. */
  private oauthAnswer(status: number, rawHeaders: string[]): readonly string[] {
    const gateway = this.ctx.oauth;
    if (gateway === undefined || !this.mcp) return rawHeaders;
    const authorization = this.req.headers.authorization;
    const origin = `http://${this.req.headers.host}`;
    const outcome = gateway.mcpAnswer({ origin, status, authorization, rawHeaders });
    const event = outcome.event;
    if (event !== undefined) this.later(() => this.record.event('oauth', event));
    return outcome.rawHeaders;
  }

  /** Legacy SSE: release the held start of a GET stream once its first event is in, rewriting `endpoint`. */
  private onSseEvent(event: EventSourceMessage): void {
    const hold = this.hold;
    if (hold === undefined || !hold.holding) return;
    if (event.event !== 'endpoint') {
      hold.release();
      return;
    }
    this.learnEndpoint(event.data);
    const rewritten = rewriteEndpoint(event.data, this.ctx.upstream, `http://${this.req.headers.host}`);
    hold.release(rewritten === undefined ? undefined : { from: event.data.trim(), to: rewritten });
  }

  /**
   * Faults: a JSON answer some decision waits for is read whole, then sent as decided (after its latency,
   * replaced, cut, doubled, slowed, or never).
   */
  private onFaultedJson(upRes: IncomingMessage, status: number): void {
    const gate = this.ctx.faults!;
    this.later(() => this.record.response(status, traceHeaders(upRes.rawHeaders)));
    const headers = forwardableHeaders(upRes.rawHeaders, ['content-length']);
    const chunks: Buffer[] = [];
    upRes.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      this.later(() => this.record.responseChunk(chunk));
    });
    upRes.on('end', () => {
      if (this.finished) return;
      const body = Buffer.concat(chunks);
      void sendFaultedJson(gate, this.scope, body, status, headers, this.res, this.req).then((sent) => {
        // A dropped answer leaves the client waiting, as a server that never answers would.
        if (sent && !this.res.writableEnded) this.res.end();
        this.later(() => this.record.responseEnd());
        this.finish();
      });
    });
    upRes.on('error', () => {
      if (this.finished) return;
      this.res.destroy();
      this.finish();
    });
  }

  /** The legacy POST endpoint's path carries MCP messages from now on. */
  private learnEndpoint(data: string): void {
    try {
      const url = new URL(data.trim(), `${this.ctx.upstream.origin}${this.target}`);
      // Faults: the answers of the session this stream carries come down it.
      this.scope = legacySessionOf(url.search) ?? this.scope;
      if (url.origin === this.ctx.upstream.origin) this.ctx.mcpPaths.add(url.pathname);
    } catch {
      // Not a URL: the client fails on it the same way; nothing to learn.
    }
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.later(() => this.record.close());
    this.ctx.active.delete(this);
    this.settle();
  }
}

/** A Bearer challenge, or a client fetching protected-resource metadata through the proxy (RFC 9728). */
function asksForOAuth(status: number, challenge: string | undefined, target: string): boolean {
  if (status === 401 && challenge !== undefined && /^\s*bearer\b/i.test(challenge)) return true;
  return status === 200 && target.startsWith('/.well-known/oauth-protected-resource');
}

/** The id of a JSON-RPC request body (a batch or a notification has none to name). */
function requestId(body: Json | undefined): Json {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const id = body.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
