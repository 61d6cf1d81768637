import { classifyMessage, isObject, type JsonObject, type RpcItem } from '../../../trace/jsonrpc.js';
import type { Json } from '../../../trace/types.js';
import type { FrontDoor } from './door.js';
import { batchRefusal, HEADER_MISMATCH, headerMismatch, isModernRequest, MODERN_VERSION } from './era.js';
import { type HttpRequestLike, type HttpResponseLike, header } from './http-types.js';
import { Reply, type ReplyFormat } from './reply.js';
import { accepts, isJsonContentType, readJsonBody, sendEmpty } from './respond.js';
import type { LiveSession } from './session.js';
import { parseEventId } from './sse.js';

/**
 * Streamable HTTP, on every path: POST carries client messages (requests answered on the POST — see reply.ts —
 * notifications and the client's answers to server→client requests get 202), GET opens a session's stream for
 * messages that belong to no request (or resumes a stream after `Last-Event-ID`), DELETE ends a session.
 * Statuses and error bodies follow the SDK's own servers: 400 without `Mcp-Session-Id` after initialize, 404 for an
 * unknown session, 405 for a 2026-era GET.
 */

/** Serves one HTTP request. */
export async function handleStreamable(
  door: FrontDoor,
  req: HttpRequestLike,
  res: HttpResponseLike,
): Promise<void> {
  switch (req.method) {
    case 'POST':
      return post(door, req, res);
    case 'GET':
      return get(door, req, res);
    case 'DELETE':
      return remove(door, req, res);
    default:
      door.reject(req, res, 405, -32000, 'Method not allowed.', { allow: 'GET, POST, DELETE' });
  }
}

async function post(door: FrontDoor, req: HttpRequestLike, res: HttpResponseLike): Promise<void> {
  const reject = (status: number, code: number, message: string) =>
    door.reject(req, res, status, code, message);
  if (!isJsonContentType(header(req.headers, 'content-type')))
    return reject(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
  const accept = accepts(header(req.headers, 'accept'));
  if (!accept.sse && !accept.json)
    return reject(406, -32000, 'Not Acceptable: Client must accept application/json or text/event-stream');
  const raw = await readJsonBody(req, door.settings.maxBodyBytes, reject);
  if (raw === undefined) return;
  const batch = Array.isArray(raw);
  const values = Array.isArray(raw) ? raw : [raw];
  if (values.length === 0) return reject(400, -32600, 'Invalid Request: an empty batch');
  const items = values.map((value) => classifyMessage(value) as RpcItem);
  const valid = (value: Json, item: RpcItem) =>
    isObject(value) && value.jsonrpc === '2.0' && item.kind !== 'invalid';
  if (!values.every((value, i) => valid(value, items[i]!)))
    return reject(400, -32700, 'Parse error: Invalid JSON-RPC message');
  const messages = values as JsonObject[];

  const found = sessionFor(door, req, items);
  if ('status' in found) return reject(found.status, found.code, found.message);
  const { session, sessionless } = found;
  if (batch) {
    const refusal = batchRefusal(session.protocolVersion, sessionless);
    if (refusal !== undefined) return reject(400, -32600, refusal);
  }
  if (sessionless) {
    for (const item of items) {
      const mismatch = headerMismatch(req.headers, item);
      if (mismatch !== undefined) return reject(400, HEADER_MISMATCH, mismatch);
    }
  }

  const headers: Record<string, string> = sessionless ? {} : { 'mcp-session-id': session.id };
  const tag = sessionless ? door.nextPostTag() : session.tag;
  const cancelTag = sessionless ? (id: string | number) => session.scopeOf(id) ?? tag : undefined;
  if (!items.some((item) => item.kind === 'request')) {
    door.hub.receive({ session, reply: undefined, tag }, messages, cancelTag);
    return sendEmpty(res, 202, headers);
  }
  const reply = new Reply(res, {
    format: replyFormat(accept, sessionless),
    batch,
    headers,
    streamId: sessionless ? tag : session.nextStreamId(),
    maxHistory: door.settings.maxHistory,
    progressGapMs: door.settings.progressGapMs,
    onFinish: (done) => session.finished(done),
    deferHead: door.hub.faulty,
  });
  session.add(reply);
  door.hub.receive({ session, reply, tag }, messages, cancelTag);
}

/**
 * Session-era clients get event streams (the SDK server's default), or JSON when their `Accept` allows nothing
 * else; 2026-era requests get JSON unless something comes before the response, as the era's server does.
 */
function replyFormat(accept: { sse: boolean; json: boolean }, sessionless: boolean): ReplyFormat {
  if (!accept.sse) return 'json';
  if (!accept.json) return 'sse';
  return sessionless ? 'auto' : 'sse';
}

type Found =
  | { session: LiveSession; sessionless: boolean }
  | { status: number; code: number; message: string };

function sessionFor(door: FrontDoor, req: HttpRequestLike, items: readonly RpcItem[]): Found {
  const id = header(req.headers, 'mcp-session-id');
  const initialize = items.some((item) => item.kind === 'request' && item.method === 'initialize');
  if (id !== undefined) {
    const session = door.sessions.get(id);
    if (session?.kind !== 'streamable') return { status: 404, code: -32001, message: 'Session not found' };
    if (initialize)
      return { status: 400, code: -32600, message: 'Invalid Request: Server already initialized' };
    return { session, sessionless: false };
  }
  if (initialize) {
    if (items.length > 1)
      return {
        status: 400,
        code: -32600,
        message: 'Invalid Request: Only one initialization request is allowed',
      };
    return { session: door.open('streamable'), sessionless: false };
  }
  if (door.settings.modernOnly || isModernRequest(req.headers, items))
    return { session: door.stateless, sessionless: true };
  return { status: 400, code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' };
}

/** The session a GET or DELETE names, or the refusal already sent. */
function namedSession(door: FrontDoor, req: HttpRequestLike, res: HttpResponseLike): LiveSession | undefined {
  const id = header(req.headers, 'mcp-session-id');
  if (id === undefined) {
    const version = header(req.headers, 'mcp-protocol-version');
    // The 2026-07-28 era has no sessions and no GET stream: its server answers 405.
    if (door.settings.modernOnly || (version !== undefined && version >= MODERN_VERSION))
      door.reject(req, res, 405, -32000, 'Method not allowed.', { allow: 'POST' });
    else door.reject(req, res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    return undefined;
  }
  const session = door.sessions.get(id);
  if (session?.kind !== 'streamable') {
    door.reject(req, res, 404, -32001, 'Session not found');
    return undefined;
  }
  return session;
}

function get(door: FrontDoor, req: HttpRequestLike, res: HttpResponseLike): void {
  const session = namedSession(door, req, res);
  if (!session) return;
  if (!accepts(header(req.headers, 'accept')).sse) {
    door.reject(req, res, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    return;
  }
  const headers = { 'mcp-session-id': session.id };
  const resumeAt = parseEventId(header(req.headers, 'last-event-id'));
  if (resumeAt && session.resume(res, headers, resumeAt.stream, resumeAt.seq)) return;
  if (session.hasStandalone) {
    door.reject(req, res, 409, -32000, 'Conflict: Only one SSE stream is allowed per session');
    return;
  }
  session.openStandalone(res, headers);
}

function remove(door: FrontDoor, req: HttpRequestLike, res: HttpResponseLike): void {
  const session = namedSession(door, req, res);
  if (!session) return;
  door.end(session);
  sendEmpty(res, 200);
}
