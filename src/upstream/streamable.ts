import { idKey, isObject, messageItems, type RpcId } from '../trace/jsonrpc.js';
import type { Json } from '../trace/types.js';
import { HttpUpstreamBase } from './base.js';
import { causeOf, httpError, isJsonRpc, parseBody, sleep } from './fetch.js';
import { eraVersionOf, headerObject, lowerKeys, postHeaders, sessionHeaders } from './headers.js';
import { readSse } from './sse.js';
import { type SendResult, UPSTREAM_DEFAULTS, type Upstream, UpstreamError } from './types.js';

/**
 * A raw Streamable HTTP client: it POSTs each message as given and hands back every server message as it arrives,
 * with the stream and event id it came on — no validation, no reordering, no SDK in between, so a recorder sees the
 * wire. It keeps the session id the `initialize` answer names and the protocol version its result settles on,
 * sends both on every later request, opens the standalone GET stream once the client said `initialized` (a 405
 * means the server offers none), resumes a dropped stream with `Last-Event-ID` after the server's `retry:` delay,
 * and DELETEs the session on close.
 */
export class StreamableUpstream extends HttpUpstreamBase implements Upstream {
  readonly transport = 'streamable' as const;
  protocolVersion: string | undefined;
  private gets = 0;
  /** Set while an `initialize` is waiting for its answer head: later messages need the session it names. */
  private initGate: Promise<void> | undefined;
  /** Resolves once the previous POST was accepted (its answer head arrived, or it failed). */
  private lastAccepted: Promise<void> = Promise.resolve();
  /** Ids of initialize requests sent, whose results carry the protocol version. */
  private readonly initIds = new Set<string>();
  private standalone = false;
  private closing: Promise<void> | undefined;
  private ending = false;

  async start(): Promise<void> {}

  async send(message: Json, options: { text?: string; atMs?: number } = {}): Promise<SendResult> {
    if (this.life.signal.aborted) throw new UpstreamError('closed', `the session with ${this.url} is closed`);
    const items = messageItems(message);
    const isInit = items.some((item) => item.kind === 'request' && item.method === 'initialize');
    if (!isInit && this.initGate) await this.initGate;
    const previous = this.lastAccepted;
    let accepted!: () => void;
    const acceptance = new Promise<void>((resolve) => {
      accepted = resolve;
    });
    this.lastAccepted = acceptance;
    if (isInit) this.initGate = acceptance;
    // Messages reach the server in the order they were sent, unless one takes long to be accepted.
    await Promise.race([previous, sleep(this.timeouts.orderMs)]);
    for (const item of items)
      if (this.isInitRequest(item)) this.initIds.add(idKey((item as { id: RpcId }).id));
    try {
      return await this.post(message, options.text ?? JSON.stringify(message), options.atMs, accepted);
    } finally {
      accepted();
      if (
        !this.standalone &&
        eraVersionOf(Array.isArray(message) ? message[0] : message) === undefined &&
        items.some((item) => item.kind === 'notification' && item.method === 'notifications/initialized')
      ) {
        this.standalone = true;
        void this.openStandalone();
      }
    }
  }

  private async post(
    message: Json,
    text: string,
    atMs: number | undefined,
    accepted: () => void,
  ): Promise<SendResult> {
    const stream = `post-${++this.posts}`;
    const headers = postHeaders(message, this, this.extra);
    const sentAt = atMs ?? Date.now();
    const items = messageItems(message);
    // The initialize request belongs to the session its answer names: it is reported once that is known.
    const defer = this.sessionId === undefined && items.some((item) => this.isInitRequest(item));
    let reported = false;
    const report = () => {
      if (reported) return;
      reported = true;
      this.options.onEnvelope?.({
        dir: 'in',
        stream,
        conn: this.sessionId,
        method: 'POST',
        url: this.url,
        headers,
        atMs: sentAt,
      });
      this.options.onSent?.({ raw: message, text, stream, conn: this.sessionId, atMs: sentAt });
    };
    if (!defer) report();
    const open = new Set(items.flatMap((item) => (item.kind === 'request' ? [idKey(item.id)] : [])));
    const ids = new Map(
      items.flatMap((item) => (item.kind === 'request' ? [[idKey(item.id), item.id]] : [])),
    );
    const control = new AbortController();
    const signal = AbortSignal.any([this.life.signal, control.signal]);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      control.abort();
    }, this.timeouts.answerMs);
    try {
      let response: Response;
      try {
        response = await this.request(this.url, { method: 'POST', headers, body: text }, signal);
      } catch (err) {
        report();
        throw err;
      }
      if (defer) {
        const session = response.headers.get('mcp-session-id');
        if (session) this.sessionId = session;
      }
      report();
      accepted();
      this.envelopeOut(stream, response);
      await this.readAnswer(response, stream, open, signal);
      return {
        status: response.status,
        stream,
        unanswered: [...open].map((key) => ids.get(key) as RpcId),
      };
    } catch (err) {
      if (timedOut) {
        throw new UpstreamError(
          'timeout',
          `the upstream ${this.url} did not finish answering within ${this.timeouts.answerMs} ms`,
        );
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private isInitRequest(item: ReturnType<typeof messageItems>[number]): boolean {
    return item.kind === 'request' && item.method === 'initialize';
  }

  private envelopeOut(stream: string, response: Response): void {
    this.options.onEnvelope?.({
      dir: 'out',
      stream,
      conn: this.sessionId,
      status: response.status,
      headers: headerObject(response.headers),
      atMs: Date.now(),
    });
  }

  /** The answer to one POST: nothing (202), a JSON body, an SSE stream, or an error. */
  private async readAnswer(
    response: Response,
    stream: string,
    open: Set<string>,
    signal: AbortSignal,
  ): Promise<void> {
    const type = response.headers.get('content-type') ?? '';
    if (!response.ok) {
      const body = await response.text().catch(() => '');
      const parsed = parseBody(body);
      // A JSON-RPC error in a 4xx (a modern server's way to refuse a request) is an answer, not a failure.
      if (parsed && isJsonRpc(parsed.raw)) {
        await this.deliver(parsed, stream, undefined, open);
        return;
      }
      throw httpError(this.url, response.status, response.statusText, body);
    }
    if (response.status === 202 || response.status === 204 || response.body === null) {
      await response.body?.cancel().catch(() => {});
      return;
    }
    if (type.includes('text/event-stream')) {
      await this.consume(response, stream, open, signal, 'post');
      return;
    }
    const body = await response.text();
    const parsed = parseBody(body);
    if (parsed) {
      await this.deliver(parsed, stream, undefined, open);
      return;
    }
    if (body.trim() !== '') {
      throw new UpstreamError(
        'protocol',
        `the upstream ${this.url} answered ${response.status} with ${type || 'no content-type'} that is not JSON; expected application/json or text/event-stream`,
        response.status,
      );
    }
  }

  /**
   * Reads an SSE stream to its end, resuming it with `Last-Event-ID` when it drops early: a POST stream until
   * every request in it has its response, the standalone GET stream until the session closes.
   */
  private async consume(
    first: Response,
    stream: string,
    open: Set<string>,
    signal: AbortSignal,
    kind: 'post' | 'get',
  ): Promise<void> {
    let response: Response | undefined = first;
    let lastEventId: string | undefined;
    let retryMs = this.timeouts.reconnectMs;
    let attempts = 0;
    while (response?.body) {
      try {
        for await (const event of readSse(response.body, { onRetry: (ms) => (retryMs = ms) })) {
          if (event.id !== undefined) lastEventId = event.id;
          attempts = 0;
          // The priming event (an id and no data) and named non-message events carry no JSON-RPC.
          if (event.data.trim() === '' || (event.event !== undefined && event.event !== 'message')) continue;
          const parsed = parseBody(event.data);
          if (!parsed) {
            this.options.onEvent?.({
              kind: 'upstream-error',
              stream,
              message: `a non-JSON event on ${stream}: ${event.data.slice(0, 80)}`,
            });
            continue;
          }
          await this.deliver(parsed, stream, event.id, open);
        }
      } catch (err) {
        if (signal.aborted) throw err;
        if (!this.ending) this.options.onEvent?.({ kind: 'stream-lost', stream, message: causeOf(err) });
      }
      if (signal.aborted || this.ending) return;
      const more = kind === 'get' || open.size > 0;
      if (!more) return;
      // A POST stream can only be resumed from an event id; the GET stream may simply be opened again.
      if ((kind === 'post' && lastEventId === undefined) || ++attempts > UPSTREAM_DEFAULTS.maxReconnects) {
        if (kind === 'post')
          this.options.onEvent?.({ kind: 'stream-lost', stream, message: 'ended before its response' });
        return;
      }
      this.options.onEvent?.({ kind: 'reconnect', stream, lastEventId, delayMs: retryMs, attempt: attempts });
      await sleep(retryMs, signal);
      if (signal.aborted) return;
      response = await this.getStream(stream, lastEventId, signal).catch((err: Error) => {
        this.options.onEvent?.({ kind: 'stream-lost', stream, message: err.message });
        return undefined;
      });
    }
  }

  /** GET the session's SSE stream (fresh, or resuming after `lastEventId`); undefined for 405. */
  private async getStream(
    stream: string,
    lastEventId: string | undefined,
    signal: AbortSignal,
  ): Promise<Response | undefined> {
    const headers: Record<string, string> = {
      ...lowerKeys(this.extra),
      accept: 'text/event-stream',
      ...sessionHeaders(this),
    };
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    this.options.onEnvelope?.({
      dir: 'in',
      stream,
      conn: this.sessionId,
      method: 'GET',
      url: this.url,
      headers,
      atMs: Date.now(),
    });
    const response = await this.request(this.url, { method: 'GET', headers }, signal);
    this.envelopeOut(stream, response);
    if (response.status === 405) {
      await response.body?.cancel().catch(() => {});
      this.options.onEvent?.({ kind: 'no-standalone-stream', status: 405 });
      return undefined;
    }
    if (!response.ok) throw httpError(this.url, response.status, response.statusText, await response.text());
    return response;
  }

  private async openStandalone(): Promise<void> {
    const stream = `get-${++this.gets}`;
    try {
      const response = await this.getStream(stream, undefined, this.life.signal);
      if (response) await this.consume(response, stream, new Set(), this.life.signal, 'get');
    } catch (err) {
      if (!this.life.signal.aborted)
        this.options.onEvent?.({ kind: 'stream-lost', stream, message: (err as Error).message });
    }
  }

  private async deliver(
    parsed: { raw: Json; text: string },
    stream: string,
    eventId: string | undefined,
    open: Set<string>,
  ): Promise<void> {
    for (const item of messageItems(parsed.raw)) {
      if (item.kind !== 'response' || item.id === null) continue;
      const key = idKey(item.id);
      open.delete(key);
      if (this.initIds.delete(key) && isObject(item.result)) {
        const version = item.result.protocolVersion;
        if (typeof version === 'string') this.protocolVersion = version;
      }
    }
    await this.options.onMessage({
      raw: parsed.raw,
      text: parsed.text,
      stream,
      eventId,
      conn: this.sessionId,
      atMs: Date.now(),
    });
  }

  /** DELETEs the session (when there is one) and drops every stream. Safe to call more than once. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      // The DELETE ends the server's streams: that is no reason to reconnect.
      this.ending = true;
      if (this.sessionId !== undefined) {
        const stream = 'delete';
        const headers = { ...lowerKeys(this.extra), ...sessionHeaders(this) };
        this.options.onEnvelope?.({
          dir: 'in',
          stream,
          conn: this.sessionId,
          method: 'DELETE',
          url: this.url,
          headers,
          atMs: Date.now(),
        });
        try {
          // Not tied to the session's life, which this request ends; bounded by the close timeout instead.
          const response = await this.request(
            this.url,
            { method: 'DELETE', headers },
            new AbortController().signal,
            this.timeouts.closeMs,
          );
          this.envelopeOut(stream, response);
          await response.body?.cancel().catch(() => {});
        } catch (err) {
          this.options.onEvent?.({ kind: 'upstream-error', stream, message: (err as Error).message });
        }
      }
      this.life.abort();
      this.options.onEvent?.({ kind: 'closed', reason: 'closed by the client' });
      this.markClosed('closed by the client');
    })();
    return this.closing;
  }
}
