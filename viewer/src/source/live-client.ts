import type { FollowStatus } from '../data/follow.js';

/**
 * Follows a trace over the collector's live websocket. Frames (JSON text):
 *   {"type":"lines","lines":[<trace line>, …]}   the snapshot after `since`, then each append
 *   {"type":"dropped","count":N}                   lines the collector skipped because this viewer fell behind
 *   {"type":"end","line":<end line>}               the recording ended; the collector closes the socket
 * Heartbeats are websocket pings, which the browser answers by itself. When the socket drops for any other
 * reason the client reconnects with `?since=<last seq seen>`, backing off up to a few seconds, so nothing is
 * received twice and nothing after the last seen line is missed.
 */

/** Where the connection stands (the follow state's status). */
export type LiveStatus = FollowStatus;

export interface LiveHandlers {
  /** New lines, in order, each with its `seq`. */
  lines(lines: readonly Record<string, unknown>[]): void;
  dropped(count: number): void;
  end(line: Record<string, unknown> | undefined): void;
  status(status: LiveStatus, detail?: string): void;
}

/** The part of a WebSocket the client uses (the browser's, or `ws` in tests). */
export interface SocketLike {
  onopen: (() => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  close(code?: number, reason?: string): void;
}

export type SocketFactory = (url: string, protocols: string[]) => SocketLike;

/** The page's own WebSocket. */
const browserSocket: SocketFactory = (url, protocols) =>
  new (
    globalThis as unknown as { WebSocket: new (url: string, protocols: string[]) => SocketLike }
  ).WebSocket(url, protocols);

export interface LiveOptions {
  /** The websocket URL for lines after `since` (absolute, ws: or wss:). */
  url: (since: number) => string;
  /** Subprotocols to offer (the collector takes its token this way). */
  protocols?: string[];
  handlers: LiveHandlers;
  /** First reconnect delay; doubles up to maxDelayMs. */
  delayMs?: number;
  maxDelayMs?: number;
  /** Start after this seq (lines already loaded another way). */
  since?: number;
  /** How sockets are made (default: the browser's WebSocket). */
  socket?: SocketFactory;
}

/** Close codes after which reconnecting is pointless. */
const FINAL_CODES = new Set([1000, 4401, 4403, 4404, 4410]);

/**
 * A live connection that keeps itself up until stopped or the trace ends.
 *
 * @example
 * const live = new LiveClient({ url: (since) => `ws://127.0.0.1:7420/api/v1/traces/abc/live?since=${since}`, handlers });
 * live.start(); … live.stop();
 */
export class LiveClient {
  private socket: SocketLike | undefined;
  private since: number;
  private delay: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private ended = false;
  /** Connections made so far (the first one included). */
  connections = 0;

  constructor(private readonly options: LiveOptions) {
    this.since = options.since ?? 0;
    this.delay = options.delayMs ?? 250;
  }

  /** The last seq received. */
  get lastSeq(): number {
    return this.since;
  }

  start(): void {
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.socket?.close(1000, 'viewer closed');
    this.socket = undefined;
    this.options.handlers.status('closed');
  }

  private connect(): void {
    const { handlers } = this.options;
    // A reconnect was announced when the old socket closed.
    if (this.connections === 0) handlers.status('connecting');
    this.connections++;
    let socket: SocketLike;
    try {
      socket = (this.options.socket ?? browserSocket)(
        this.options.url(this.since),
        this.options.protocols ?? [],
      );
    } catch (err) {
      handlers.status('gone', err instanceof Error ? err.message : String(err));
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.delay = this.options.delayMs ?? 250;
      handlers.status('live');
    };
    socket.onmessage = (event) => this.frame(event.data);
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      if (this.stopped) return;
      if (this.ended) return handlers.status('ended');
      if (FINAL_CODES.has(event.code)) {
        return handlers.status('gone', event.reason || `closed (${event.code})`);
      }
      handlers.status('reconnecting', event.reason || undefined);
      this.timer = setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, this.options.maxDelayMs ?? 5000);
    };
  }

  private frame(data: unknown): void {
    if (typeof data !== 'string') return;
    let frame: { type?: unknown; lines?: unknown; count?: unknown; line?: unknown };
    try {
      frame = JSON.parse(data) as typeof frame;
    } catch {
      return;
    }
    const { handlers } = this.options;
    switch (frame.type) {
      case 'lines': {
        if (!Array.isArray(frame.lines)) return;
        // A line at or before `since` was already received (a reconnect racing an append): skip it.
        const fresh = (frame.lines as Record<string, unknown>[]).filter(
          (line) => typeof line?.seq !== 'number' || line.seq > this.since,
        );
        for (const line of fresh) if (typeof line.seq === 'number') this.since = line.seq;
        if (fresh.length > 0) handlers.lines(fresh);
        return;
      }
      case 'dropped':
        if (typeof frame.count === 'number') handlers.dropped(frame.count);
        return;
      case 'end':
        this.ended = true;
        handlers.end(
          typeof frame.line === 'object' && frame.line !== null
            ? (frame.line as Record<string, unknown>)
            : undefined,
        );
        return;
      default:
        // Anything else (an application-level heartbeat, a newer frame type) needs no answer.
        return;
    }
  }
}
