import { idKey, type JsonObject, type RpcId } from '../../../trace/jsonrpc.js';
import type { SessionKind } from './events.js';
import type { HttpResponseLike } from './http-types.js';
import { tagId } from './ids.js';
import type { Reply } from './reply.js';
import { type Delivery, SseStream } from './sse.js';

/**
 * One live session and the HTTP streams that carry its server messages: the replies to its POSTs, its standalone
 * GET stream (or, for legacy SSE, the one stream that carries everything), and the streams a client may resume.
 * Messages for a GET stream that is not open yet are kept (bounded): a client opens it only after its
 * `notifications/initialized` was accepted, and what the recording sent right after that must not be lost.
 */

export interface SessionOptions {
  maxBuffered: number;
  maxHistory: number;
  progressGapMs: number;
  /** A message nothing could carry. */
  onDropped: (reason: string, message: JsonObject) => void;
}

/** Finished reply streams kept for resumption, per session. */
const KEPT_STREAMS = 32;

export class LiveSession {
  /** The protocol version the initialize exchange settled on (undefined before, and for 2026-era requests). */
  protocolVersion: string | undefined;
  /** Tagged id key of the `initialize` request whose response sets `protocolVersion`. */
  initKey: string | undefined;
  private readonly replies = new Set<Reply>();
  private readonly finishedStreams = new Map<string, SseStream>();
  private standalone: SseStream | undefined;
  private readonly buffer: { message: JsonObject; how: Delivery | undefined }[] = [];
  /** Responses to resumed streams that had already ended, held open until the session ends. */
  private readonly held = new Set<HttpResponseLike>();
  private posts = 0;
  private ended = false;

  constructor(
    /** The `Mcp-Session-Id` (or legacy `sessionId`); '' for the sessionless scope. */
    readonly id: string,
    readonly kind: SessionKind,
    /** Short name used to tag this session's ids. */
    readonly tag: string,
    private readonly options: SessionOptions,
  ) {}

  get closed(): boolean {
    return this.ended;
  }

  /** Names the next POST's stream (`p1`, `p2` …). */
  nextStreamId(): string {
    return `p${++this.posts}`;
  }

  add(reply: Reply): void {
    this.replies.add(reply);
  }

  /** A reply sent its last response: its stream stays resumable for a while. */
  finished(reply: Reply): void {
    this.replies.delete(reply);
    if (!reply.sse) return;
    this.finishedStreams.set(reply.streamId, reply.sse);
    if (this.finishedStreams.size > KEPT_STREAMS)
      this.finishedStreams.delete(this.finishedStreams.keys().next().value!);
  }

  /** The open reply waiting for the response to tagged id key `key`. */
  replyHolding(key: string): Reply | undefined {
    for (const reply of this.replies) if (reply.holds(key)) return reply;
    return undefined;
  }

  /**
   * The scope a session-less request with live id `id` was tagged in: the POST still waiting for its answer (the
   * latest, should two clients use the same id). A 2026-era client cancels on a POST of its own.
   */
  scopeOf(id: RpcId): string | undefined {
    let found: string | undefined;
    for (const reply of this.replies)
      if (reply.holds(idKey(tagId(reply.streamId, id)))) found = reply.streamId;
    return found;
  }

  /**
   * A server message for the session as a whole: down the GET stream, kept until one opens, or dropped. `how`: as
   * an injected fault changes it.
   */
  push(message: JsonObject, how?: Delivery): void {
    if (this.ended) this.options.onDropped('the session has ended', message);
    else if (this.kind === 'stateless')
      this.options.onDropped('2026-07-28-era requests have no stream for messages outside them', message);
    else if (this.standalone?.connected) this.standalone.send(message, how);
    else {
      this.buffer.push({ message, how });
      if (this.buffer.length > this.options.maxBuffered)
        this.options.onDropped('too many messages waiting for the GET stream', this.buffer.shift()!.message);
    }
  }

  /** Cuts the session's GET stream (an injected disconnect on legacy SSE, whose answers all go down it). */
  disconnect(): void {
    this.standalone?.destroy();
  }

  get hasStandalone(): boolean {
    return this.standalone?.connected === true;
  }

  /**
   * Makes `res` the session's GET stream (legacy SSE: the stream of everything, without event ids) and sends what
   * waited for it. `afterSeq` resumes after that event number.
   */
  openStandalone(res: HttpResponseLike, headers: Record<string, string>, afterSeq?: number): SseStream {
    this.standalone ??= new SseStream({
      id: this.kind === 'sse' ? undefined : 'get',
      maxHistory: this.options.maxHistory,
      progressGapMs: this.options.progressGapMs,
    });
    this.standalone.attach(res, headers, afterSeq);
    for (const { message, how } of this.buffer.splice(0)) this.standalone.send(message, how);
    return this.standalone;
  }

  /** Resumes stream `streamId` after event `seq` on `res`; false when no such stream is known. */
  resume(res: HttpResponseLike, headers: Record<string, string>, streamId: string, seq: number): boolean {
    if (streamId === 'get') {
      this.openStandalone(res, headers, seq);
      return true;
    }
    let stream: SseStream | undefined = this.finishedStreams.get(streamId);
    for (const reply of this.replies) if (reply.streamId === streamId) stream = reply.sse;
    if (!stream) return false;
    stream.attach(res, headers, seq);
    if (stream.done) {
      this.held.add(res);
      res.on('close', () => this.held.delete(res));
    }
    return true;
  }

  /** Ends the session: every stream and reply ends, later messages are dropped. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    for (const reply of [...this.replies]) reply.close();
    this.standalone?.end();
    for (const res of this.held) if (!res.writableEnded) res.end();
    this.held.clear();
    this.buffer.length = 0;
  }
}
