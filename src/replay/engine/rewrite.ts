import { cancelledRequestId, idKey, isObject, type JsonObject, type RpcId } from '../../trace/jsonrpc.js';
import type { Json } from '../../trace/types.js';

/**
 * Rewrites recorded server messages for the live session: ids, progress tokens, 2026-era subscription ids and
 * cancellation targets are the recording's, and the live client only knows its own.
 */

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** What the live session calls things. */
export interface LiveIds {
  /** The live id of the request whose script plays (undefined for unsolicited messages). */
  id: RpcId | undefined;
  /** The live request's progress token; progress is dropped without one. */
  progressToken: RpcId | undefined;
  /** Recorded id (idKey) → live id: the exchange's request and the server→client requests sent so far. */
  ids: Map<string, RpcId>;
  /** Ordinal of a recorded `subscriptions/listen` → the id of the live listen request it was matched to. */
  subscriptions: ReadonlyMap<number, RpcId>;
}

/**
 * The recorded response with the live request's id.
 *
 * @example rewriteResponse({ jsonrpc: '2.0', id: 6, result: {} }, 'abc') // → { jsonrpc: '2.0', id: 'abc', result: {} }
 */
export function rewriteResponse(response: JsonObject, id: RpcId): JsonObject {
  return { ...response, id };
}

/**
 * A recorded server notification or request made fit for the live session, or undefined to leave it out: progress
 * when the live request asked for none, subscription notifications when the live client holds no such subscription.
 * A server→client request keeps its recorded id here; the engine gives it a fresh one.
 *
 * @example rewriteServerMessage(progress, { id: 9, progressToken: 'tok', ids: new Map(), subscriptions: new Map() }, undefined)
 * // → { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 1 } }
 */
export function rewriteServerMessage(
  recorded: JsonObject,
  live: LiveIds,
  subscription: number | undefined,
): JsonObject | undefined {
  const message = structuredClone(recorded) as JsonObject;
  const params = isObject(message.params) ? message.params : undefined;
  if (message.method === 'notifications/progress' && params && 'progressToken' in params) {
    if (live.progressToken === undefined) return undefined;
    params.progressToken = live.progressToken;
  }
  const meta = params && isObject(params._meta) ? params._meta : undefined;
  if (meta && SUBSCRIPTION_ID in meta) {
    const listen = subscription === undefined ? undefined : live.subscriptions.get(subscription);
    if (listen === undefined) return undefined;
    meta[SUBSCRIPTION_ID] = listen;
  }
  if (params && message.method === 'notifications/cancelled') {
    const cancelled = cancelledRequestId({ kind: 'notification', method: message.method, params });
    const mapped = cancelled === undefined ? undefined : live.ids.get(idKey(cancelled));
    if (mapped !== undefined) params.requestId = mapped;
  }
  return message;
}

/**
 * A JSON-RPC error response.
 *
 * @example errorResponse(3, -32090, 'no recorded answer for tools/list') // → { jsonrpc: '2.0', id: 3, error: { code: -32090, message: '…' } }
 */
export function errorResponse(id: RpcId | null, code: number, message: string, data?: Json): JsonObject {
  const error: JsonObject = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: '2.0', id, error };
}
