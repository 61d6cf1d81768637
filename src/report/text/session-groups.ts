import type { TraceLine } from '../../trace/types.js';
import type { Palette } from './color.js';
import { sessionSummary } from './timeline.js';

/**
 * The sessions of one trace as `tapedeck show` groups them. A recorder files each message under its session's key
 * (`conn`): the `Mcp-Session-Id` a server opened, or, in the stateless 2026-07-28 era that has none on the wire,
 * the key the recorder minted per client and announced with a `session` event. Messages of several sessions
 * interleave in time; a row heads each run of one session's messages, and a table of the sessions closes the
 * timeline. With one session asked for, only its lines pass, with the lines of no session (meta, end, events).
 *
 * Streaming: an HTTP request line is written before the recorder knows its session (its `conn` is the connection
 * then), so it waits, by its `stream`, until the next line of that stream says which session it is.
 *
 * @example const groups = new SessionGroups('8952be798246'); for (const line of groups.push(read)) render(line);
 */

interface Session {
  key: string;
  summary: string;
  messages: number;
}

/** Streams held back at most, waiting to learn their session; past it the oldest are let through. */
const MAX_PENDING_STREAMS = 1000;

export class SessionGroups {
  private readonly sessions = new Map<string, Session>();
  /** The session of the latest message row (or session row). */
  private current: string | undefined;
  private readonly pending = new Map<string, { line: TraceLine; lineNo: number | undefined }[]>();
  private matched = false;

  constructor(private readonly only?: string) {}

  /** The lines to show for one line read (with `only`: of that session or of none), in order. */
  push(line: TraceLine, lineNo: number | undefined): { line: TraceLine; lineNo: number | undefined }[] {
    const rec = line as {
      type?: unknown;
      name?: unknown;
      sessionId?: unknown;
      conn?: unknown;
      stream?: unknown;
    };
    if (rec.type === 'event' && rec.name === 'session' && typeof rec.sessionId === 'string') {
      if (!this.sessions.has(rec.sessionId))
        this.sessions.set(rec.sessionId, {
          key: shortKey(rec.sessionId),
          summary: sessionSummary({
            ...(line as Record<string, unknown>),
            sessionId: shortKey(rec.sessionId),
          }),
          messages: 0,
        });
    }
    const conn = typeof rec.conn === 'string' ? rec.conn : undefined;
    const stream = typeof rec.stream === 'string' ? rec.stream : undefined;
    const session = conn === undefined ? undefined : this.sessions.get(conn);
    if (session !== undefined && rec.type === undefined) session.messages += 1;
    if (this.only === undefined) return [{ line, lineNo }];
    if (conn === undefined) return [{ line, lineNo }];
    if (session === undefined) {
      if (stream === undefined) return [];
      // Not yet known to be of a session: held until its stream says which.
      if (!this.pending.has(stream) && this.pending.size >= MAX_PENDING_STREAMS) {
        const oldest = this.pending.keys().next().value as string;
        this.pending.delete(oldest);
      }
      const held = this.pending.get(stream);
      if (held === undefined) this.pending.set(stream, [{ line, lineNo }]);
      else held.push({ line, lineNo });
      return [];
    }
    const held = stream === undefined ? [] : (this.pending.get(stream) ?? []);
    if (stream !== undefined) this.pending.delete(stream);
    if (!sameSession(conn, this.only)) return [];
    this.matched = true;
    return [...held, { line, lineNo }];
  }

  /** A row heading the line when it is a message of another session than the rows just before it. */
  header(line: TraceLine, c: Palette): string | undefined {
    if (this.only !== undefined) return undefined;
    const rec = line as { type?: unknown; name?: unknown; sessionId?: unknown; conn?: unknown };
    if (rec.type === 'event' && rec.name === 'session' && typeof rec.sessionId === 'string') {
      // The session row heads its own group.
      this.current = rec.sessionId;
      return undefined;
    }
    if (rec.type !== undefined || typeof rec.conn !== 'string') return undefined;
    const session = this.sessions.get(rec.conn);
    if (session === undefined || rec.conn === this.current) return undefined;
    const first = this.current === undefined;
    this.current = rec.conn;
    return first ? undefined : c.magenta(`┄ session ${session.summary}`);
  }

  /** True when `only` was asked for and some line of it was met. */
  found(): boolean {
    return this.matched;
  }

  /** The keys of the sessions met, short as shown. */
  keys(): string[] {
    return [...this.sessions.values()].map((s) => s.key);
  }

  /** The table that closes a timeline of two or more sessions: each key, its era and client, its messages. */
  table(c: Palette): string[] {
    if (this.only !== undefined || this.sessions.size < 2) return [];
    const rows = [...this.sessions.values()];
    return [
      c.bold(`${rows.length} sessions`) + c.dim(' — tapedeck show --session KEY shows one'),
      ...rows.map((s) => `  ${s.summary} · ${s.messages} message${s.messages === 1 ? '' : 's'}`),
    ];
  }
}

/**
 * How a session key is shown and asked for: a key hashed when the trace was recorded
 * (`[REDACTED:mcp-session-id:8952be798246]`) by its hash, any other key as it is.
 *
 * @example shortKey('[REDACTED:mcp-session-id:8952be798246]') // '8952be798246'
 */
export function shortKey(key: string): string {
  return /^\[REDACTED:[^:\]]+:([^\]]+)\]$/.exec(key)?.[1] ?? key;
}

function sameSession(key: string, asked: string): boolean {
  return key === asked || shortKey(key) === asked;
}
