import type { JsonObject } from '../../../trace/jsonrpc.js';
import type { HttpServeEvent, SessionKind } from './events.js';
import type { HttpRequestLike, HttpResponseLike } from './http-types.js';
import type { ReplayHub } from './hub.js';
import { sendError } from './respond.js';
import { LiveSession } from './session.js';

/**
 * What the Streamable HTTP and legacy SSE handlers share: the hub (one engine for every session), the live
 * sessions by id, the sessionless scope of 2026-era requests, and how a refusal is answered and reported.
 */

export interface DoorSettings {
  allowHosts: readonly string[];
  maxBodyBytes: number;
  maxBuffered: number;
  maxHistory: number;
  progressGapMs: number;
  /** The cassette has no `initialize`: a GET without a session is a 2026-era GET (405). */
  modernOnly: boolean;
  messagePath: string;
}

export class FrontDoor {
  readonly sessions = new Map<string, LiveSession>();
  readonly stateless: LiveSession;
  private opened = 0;
  /** Session-less POSTs so far: each tags its ids apart. */
  private posts = 0;

  constructor(
    readonly hub: ReplayHub,
    readonly settings: DoorSettings,
    readonly emit: (event: HttpServeEvent) => void,
  ) {
    this.stateless = this.makeSession('', 'stateless', 'stateless');
  }

  /** Live sessions opened so far (the sessionless scope not counted). */
  get sessionCount(): number {
    return this.opened;
  }

  /** A new session with a fresh random id. */
  open(kind: Exclude<SessionKind, 'stateless'>): LiveSession {
    const id = globalThis.crypto.randomUUID();
    const session = this.makeSession(id, kind, `s${++this.opened}`);
    this.sessions.set(id, session);
    this.emit({ kind: 'session', action: 'open', session: id, flavour: kind });
    return session;
  }

  /** Ends a session: its streams end, its id stops working. */
  end(session: LiveSession): void {
    if (session.closed) return;
    session.close();
    this.sessions.delete(session.id);
    this.emit({ kind: 'session', action: 'close', session: session.id, flavour: session.kind });
  }

  /** The scope tag of the next session-less POST. */
  nextPostTag(): string {
    return `r${++this.posts}`;
  }

  /** Ends every session (shutdown). */
  closeAll(): void {
    for (const session of [...this.sessions.values()]) this.end(session);
    this.stateless.close();
  }

  /** Answers a request the transport turns away, and reports it. */
  reject(
    req: HttpRequestLike,
    res: HttpResponseLike,
    status: number,
    code: number,
    message: string,
    headers: Record<string, string> = {},
  ): void {
    this.emit({
      kind: 'rejected',
      status,
      method: req.method ?? '',
      path: (req.url ?? '').split('?')[0] ?? '',
      reason: message,
    });
    sendError(res, status, code, message, { headers });
  }

  private makeSession(id: string, kind: SessionKind, tag: string): LiveSession {
    return new LiveSession(id, kind, tag, {
      maxBuffered: this.settings.maxBuffered,
      maxHistory: this.settings.maxHistory,
      progressGapMs: this.settings.progressGapMs,
      onDropped: (reason: string, message: JsonObject) => this.emit({ kind: 'dropped', reason, message }),
    });
  }
}
