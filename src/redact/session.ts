import type { CompiledRules } from './compile.js';
import { formatMarker, isMarker } from './marker.js';
import type { TraceState } from './state.js';
import type { Hits } from './values.js';

/**
 * The MCP session id, kept as a stable hash wherever it shows up in a trace: the `Mcp-Session-Id` header (a header
 * rule with `hash`), the `session` event's `sessionId`, a legacy HTTP+SSE `sessionId` query parameter (in a URL or
 * the `endpoint` event), and a line's `conn` when it is such an id seen earlier in the trace (the recorders write
 * the header or event before the lines filed under it). One function hashes them all, so equal ids stay equal and
 * a trace still pairs, replays, verifies and diffs as before; the id itself — which lets its holder act in the
 * session — is gone. In a trace recorded over HTTP every `conn` but a recorder's own exchange ids (`h1` …) is a
 * session id; elsewhere (an instrumented server's own session keys) only those the trace showed as one are.
 */
/** The recorder's own exchange ids (`h1`, `h2` …), used as `conn` before a session is known: not a session id. */
const STREAM_ID = /^h[0-9]{1,12}$/;
/** Fields of a line that hold the MCP session id itself. */
const SESSION_ID_FIELDS = ['sessionId', 'session_id'] as const;
/** A session id in a query string: the legacy transport's `sessionId`, or `session_id`. */
const SESSION_PARAM = /([?&](?:sessionId|session_id)=)([^&#\s]{1,512})/g;

/**
 * The stable hash marker for a session id (the same one its header gets), or the value itself when no session
 * rule applies, it is empty, a recorder's own exchange id, or a marker already.
 *
 * @example hashSession('75100744-e3d1-4f53-8d12-5556cf935de7', compiled) // '[REDACTED:mcp-session-id:3f9a0c1d2e4b]'
 */
export function hashSession(
  value: string,
  compiled: CompiledRules,
  hits?: Hits,
  where = 'sessionId',
  state?: TraceState,
): string {
  const rule = compiled.session;
  if (rule === undefined || value === '' || isMarker(value)) return value;
  state?.learnSession(value);
  hits?.hit(rule, where, value);
  return formatMarker(rule, value, { mode: 'hash', hasher: compiled.stableHash });
}

/**
 * A connection named outside a trace (a report's session header): hashed as a session id, unless it is a recorder's
 * own exchange id (`h1`) or a marker already.
 *
 * @example connShown('75100744-…', compiled) // '[REDACTED:mcp-session-id:3f9a0c1d2e4b]'; connShown('h1', compiled) // 'h1'
 */
export function connShown(conn: string, compiled: CompiledRules): string {
  return STREAM_ID.test(conn) ? conn : hashSession(conn, compiled);
}

/**
 * A line's `conn`, hashed when it is a session id the trace showed earlier; as it is otherwise.
 *
 * @example hashConn('75100744-…', compiled, undefined, state) // '[REDACTED:mcp-session-id:3f9a0c1d2e4b]' once seen
 */
export function hashConn(conn: string, compiled: CompiledRules, hits?: Hits, state?: TraceState): string {
  if (state === undefined) return conn;
  const session = state.isSession(conn) || (state.connIsSession && !STREAM_ID.test(conn));
  return session ? hashSession(conn, compiled, hits, 'conn', state) : conn;
}

/**
 * Notes the session ids a line names before its fields are redacted in order: an event's `conn` may come before the
 * `url` or `sessionId` that names the same id.
 */
export function learnSessions(line: Record<string, unknown>, state: TraceState | undefined): void {
  if (state === undefined) return;
  for (const field of SESSION_ID_FIELDS) {
    const value = line[field];
    if (typeof value === 'string' && value !== '') state.learnSession(value);
  }
  const url = line.url;
  if (typeof url !== 'string' || !url.includes('ession')) return;
  for (const match of url.matchAll(SESSION_PARAM)) state.learnSession(decodeParam(match[2]!));
}

/**
 * A URL with its `sessionId` / `session_id` query parameter hashed as {@link hashSession} does; the same string when
 * it has none.
 *
 * @example hashSessionInUrl('/message?sessionId=abc123', compiled) // '/message?sessionId=[REDACTED:mcp-session-id:…]'
 */
export function hashSessionInUrl(
  url: string,
  compiled: CompiledRules,
  hits?: Hits,
  where = 'url',
  state?: TraceState,
): string {
  if (compiled.session === undefined || !url.includes('ession')) return url;
  return url.replace(SESSION_PARAM, (whole, head: string, id: string) => {
    const hashed = hashSession(decodeParam(id), compiled, hits, where, state);
    return hashed === id ? whole : head + hashed;
  });
}

function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
