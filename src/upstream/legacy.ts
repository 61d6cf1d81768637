import type { Json } from '../trace/types.js';
import { HttpUpstreamBase } from './base.js';
import { causeOf, httpError, isJsonRpc, parseBody } from './fetch.js';
import { headerObject, lowerKeys, postHeaders } from './headers.js';
import { readSse, type SseEvent } from './sse.js';
import { type SendResult, type Upstream, UpstreamError } from './types.js';

/**
 * A raw client of the legacy HTTP+SSE transport (protocol 2024-11-05): GET the SSE URL, wait for the `endpoint`
 * event, POST every message to that endpoint (the server answers 202) and read the server's messages — answers
 * included — from the one GET stream. The session is that stream: when it ends, the session is over.
 */
export class LegacySseUpstream extends HttpUpstreamBase implements Upstream {
  readonly transport = 'sse' as const;
  private endpoint: string | undefined;
  private ended = false;

  protected override markClosed(reason: string): void {
    this.ended = true;
    super.markClosed(reason);
  }

  /**
   * Opens the SSE stream and waits (at most `endpointMs`) for the endpoint to POST to.
   *
   * @example const upstream = new LegacySseUpstream({ url: 'http://127.0.0.1:3001/sse', onMessage }); await upstream.start();
   */
  async start(): Promise<void> {
    const stream = 'sse';
    const headers = { ...lowerKeys(this.extra), accept: 'text/event-stream' };
    this.options.onEnvelope?.({
      dir: 'in',
      stream,
      conn: undefined,
      method: 'GET',
      url: this.url,
      headers,
      atMs: Date.now(),
    });
    const response = await this.request(this.url, { method: 'GET', headers });
    if (!response.ok) throw httpError(this.url, response.status, response.statusText, await response.text());
    const type = response.headers.get('content-type') ?? '';
    if (!type.includes('text/event-stream') || !response.body) {
      await response.body?.cancel().catch(() => {});
      throw new UpstreamError(
        'protocol',
        `the upstream ${this.url} answered the SSE GET with ${type || 'no content-type'}; expected text/event-stream (is it a Streamable HTTP endpoint? drop --sse)`,
      );
    }
    const events = readSse(response.body);
    const endpoint = await this.awaitEndpoint(events);
    this.endpoint = new URL(endpoint, this.url).href;
    this.sessionId = new URL(this.endpoint).searchParams.get('sessionId') ?? undefined;
    this.options.onEnvelope?.({
      dir: 'out',
      stream,
      conn: this.sessionId,
      status: response.status,
      headers: headerObject(response.headers),
      atMs: Date.now(),
    });
    this.options.onEvent?.({ kind: 'connect', url: this.endpoint, conn: this.sessionId });
    void this.pump(events, stream);
  }

  private async awaitEndpoint(events: AsyncGenerator<SseEvent>): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void events.return(undefined);
        reject(
          new UpstreamError(
            'timeout',
            `the upstream ${this.url} sent no endpoint event within ${this.timeouts.endpointMs} ms (is it a legacy SSE endpoint?)`,
          ),
        );
      }, this.timeouts.endpointMs);
    });
    const first = (async () => {
      for (;;) {
        const next = await events.next();
        if (next.done) {
          throw new UpstreamError(
            'protocol',
            `the upstream ${this.url} closed the SSE stream before its endpoint`,
          );
        }
        if (next.value.event === 'endpoint') return next.value.data.trim();
      }
    })();
    try {
      return await Promise.race([first, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async pump(events: AsyncGenerator<SseEvent>, stream: string): Promise<void> {
    let reason = 'the upstream closed the SSE stream';
    try {
      for await (const event of { [Symbol.asyncIterator]: () => events }) {
        if (event.data.trim() === '' || (event.event !== undefined && event.event !== 'message')) continue;
        const parsed = parseBody(event.data);
        if (!parsed) continue;
        await this.options.onMessage({
          ...parsed,
          stream,
          eventId: event.id,
          conn: this.sessionId,
          atMs: Date.now(),
        });
      }
    } catch (err) {
      if (!this.life.signal.aborted) reason = `the SSE stream from ${this.url} broke: ${causeOf(err)}`;
    }
    if (this.life.signal.aborted) return;
    this.options.onEvent?.({ kind: 'stream-lost', stream, message: reason });
    this.options.onEvent?.({ kind: 'closed', reason });
    this.markClosed(reason);
  }

  async send(message: Json, options: { text?: string; atMs?: number } = {}): Promise<SendResult> {
    if (this.endpoint === undefined || this.ended) {
      throw new UpstreamError(
        'closed',
        `the SSE session with ${this.url} is ${this.ended ? 'over' : 'not started'}`,
      );
    }
    const stream = `post-${++this.posts}`;
    const text = options.text ?? JSON.stringify(message);
    const headers = postHeaders(message, { sessionId: undefined, protocolVersion: undefined }, this.extra);
    const atMs = options.atMs ?? Date.now();
    this.options.onEnvelope?.({
      dir: 'in',
      stream,
      conn: this.sessionId,
      method: 'POST',
      url: this.endpoint,
      headers,
      atMs,
    });
    // Its answer comes on the session's stream, not the POST's: that is the stream the exchange lives on.
    this.options.onSent?.({ raw: message, text, stream: 'sse', conn: this.sessionId, atMs });
    const response = await this.request(this.endpoint, { method: 'POST', headers, body: text });
    this.options.onEnvelope?.({
      dir: 'out',
      stream,
      conn: this.sessionId,
      status: response.status,
      headers: headerObject(response.headers),
      atMs: Date.now(),
    });
    const body = await response.text().catch(() => '');
    const parsed = parseBody(body);
    if (parsed && isJsonRpc(parsed.raw)) {
      await this.options.onMessage({
        ...parsed,
        stream,
        eventId: undefined,
        conn: this.sessionId,
        atMs: Date.now(),
      });
    } else if (!response.ok) throw httpError(this.endpoint, response.status, response.statusText, body);
    return { status: response.status, stream, unanswered: [] };
  }

  /** Drops the stream: the legacy transport ends a session by closing it. */
  async close(): Promise<void> {
    if (this.ended) return;
    this.life.abort();
    this.options.onEvent?.({ kind: 'closed', reason: 'closed by the client' });
    this.markClosed('closed by the client');
  }
}
