import { classifyMessage, isObject, type JsonObject } from '../../../trace/jsonrpc.js';
import type { Json } from '../../../trace/types.js';
import type { FrontDoor } from './door.js';
import { batchRefusal } from './era.js';
import { type HttpRequestLike, type HttpResponseLike, header } from './http-types.js';
import { accepts, isJsonContentType, readJsonBody } from './respond.js';

/**
 * The legacy HTTP+SSE transport (protocol 2024-11-05): a GET opens a session's event stream, whose first event
 * (`endpoint`) says where to POST; client messages POSTed there get 202, and everything the server says — the
 * responses too — goes down the GET stream. The session ends when that stream closes.
 */

/** Serves one HTTP request (any path: GET opens a stream, POST `?sessionId=` delivers). */
export async function handleLegacySse(
  door: FrontDoor,
  req: HttpRequestLike,
  res: HttpResponseLike,
): Promise<void> {
  if (req.method === 'GET') return open(door, req, res);
  if (req.method === 'POST') return deliver(door, req, res);
  door.reject(req, res, 405, -32000, 'Method not allowed.', { allow: 'GET, POST' });
}

function open(door: FrontDoor, req: HttpRequestLike, res: HttpResponseLike): void {
  if (!accepts(header(req.headers, 'accept')).sse) {
    door.reject(req, res, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    return;
  }
  const session = door.open('sse');
  const stream = session.openStandalone(res, {});
  stream.writeRaw(`event: endpoint\ndata: ${door.settings.messagePath}?sessionId=${session.id}\n\n`);
  res.on('close', () => door.end(session));
}

async function deliver(door: FrontDoor, req: HttpRequestLike, res: HttpResponseLike): Promise<void> {
  const reject = (status: number, code: number, message: string) =>
    door.reject(req, res, status, code, message);
  const id = new URL(req.url ?? '/', 'http://localhost').searchParams.get('sessionId');
  if (id === null) return reject(400, -32000, 'Bad Request: the sessionId query parameter is required');
  const session = door.sessions.get(id);
  if (session?.kind !== 'sse') return reject(404, -32001, 'Session not found');
  if (!isJsonContentType(header(req.headers, 'content-type')))
    return reject(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
  const raw = await readJsonBody(req, door.settings.maxBodyBytes, reject);
  if (raw === undefined) return;
  const values = Array.isArray(raw) ? raw : [raw];
  const valid = (value: Json) =>
    isObject(value) && value.jsonrpc === '2.0' && classifyMessage(value).kind !== 'invalid';
  if (values.length === 0 || !values.every(valid))
    return reject(400, -32700, 'Parse error: Invalid JSON-RPC message');
  if (Array.isArray(raw)) {
    const refusal = batchRefusal(session.protocolVersion, false);
    if (refusal !== undefined) return reject(400, -32600, refusal);
  }
  door.hub.receive({ session, reply: undefined, tag: session.tag }, values as JsonObject[]);
  res.writeHead(202, { 'content-type': 'text/plain' });
  res.end('Accepted');
}
