import { isObject, type JsonObject, type RpcId } from '../../../trace/jsonrpc.js';
import type { Json } from '../../../trace/types.js';

/**
 * Live ids made unique across everything one engine serves. Every SDK client numbers its requests from 0, so two
 * live sessions (or two sessionless 2026-era clients) send the same ids; the engine keys cancellations and
 * subscriptions by id, so ids are tagged on the way in and restored on the way out. A tagged id is a string the
 * client never sees.
 */

const MARK = '\u0001';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/**
 * The engine's name for the live id `id` sent in the scope `tag` (a session, or one sessionless POST).
 *
 * @example tagId('s1', 0) // → '\u0001s1\u0001n0'
 */
export function tagId(tag: string, id: RpcId): string {
  return `${MARK}${tag}${MARK}${typeof id === 'number' ? 'n' : 's'}${id}`;
}

/**
 * The live id and its scope, or undefined for an id that was never tagged (the engine's own ids for
 * server→client requests).
 *
 * @example untagId(tagId('s1', 'a')) // → { tag: 's1', id: 'a' }
 */
export function untagId(id: Json | undefined): { tag: string; id: RpcId } | undefined {
  if (typeof id !== 'string' || !id.startsWith(MARK)) return undefined;
  const end = id.indexOf(MARK, 1);
  if (end < 0) return undefined;
  const tag = id.slice(1, end);
  const kind = id.charAt(end + 1);
  const text = id.slice(end + 2);
  return { tag, id: kind === 'n' ? Number(text) : text };
}

/**
 * A client message with its request id — and the id a `notifications/cancelled` names — tagged. `cancelTag`
 * says which scope a cancelled id lives in (for sessionless requests, the POST that sent it).
 */
export function tagIncoming(
  message: JsonObject,
  tag: string,
  cancelTag: (id: RpcId) => string = () => tag,
): JsonObject {
  const isRequest = typeof message.method === 'string' && isLiveId(message.id);
  const params = isObject(message.params) ? message.params : undefined;
  const cancelled =
    message.method === 'notifications/cancelled' && params && isLiveId(params.requestId)
      ? params.requestId
      : undefined;
  if (!isRequest && cancelled === undefined) return message;
  const out: JsonObject = { ...message };
  if (isRequest) out.id = tagId(tag, message.id as RpcId);
  if (cancelled !== undefined) out.params = { ...params, requestId: tagId(cancelTag(cancelled), cancelled) };
  return out;
}

/**
 * A message the engine sent, with every tagged id restored: the response id, a subscription id in `_meta`, the
 * request a `notifications/cancelled` names. Untouched (the same object) when nothing was tagged.
 */
export function untagOutgoing(message: JsonObject): JsonObject {
  let out = message;
  const own = untagId(message.id);
  if (own) out = { ...out, id: own.id };
  const params = isObject(message.params) ? message.params : undefined;
  if (!params) return out;
  const cancelled = message.method === 'notifications/cancelled' ? untagId(params.requestId) : undefined;
  const meta = isObject(params._meta) ? params._meta : undefined;
  const subscription = meta ? untagId(meta[SUBSCRIPTION_ID]) : undefined;
  if (!cancelled && !subscription) return out;
  const nextParams: JsonObject = { ...params };
  if (cancelled) nextParams.requestId = cancelled.id;
  if (subscription && meta) nextParams._meta = { ...meta, [SUBSCRIPTION_ID]: subscription.id };
  return { ...out, params: nextParams };
}

/** The (tagged) subscription a 2026-era notification belongs to. */
export function subscriptionOf(message: JsonObject): string | undefined {
  const params = isObject(message.params) ? message.params : undefined;
  const meta = params && isObject(params._meta) ? params._meta : undefined;
  const id = meta?.[SUBSCRIPTION_ID];
  return typeof id === 'string' && untagId(id) ? id : undefined;
}

function isLiveId(value: Json | undefined): value is RpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}
