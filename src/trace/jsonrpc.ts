import type { Json } from './types.js';

/**
 * JSON-RPC 2.0 message classification for MCP traffic. Pure and tolerant: a trace holds what crossed the wire, so
 * anything that is not a well-formed message is classified as `invalid` instead of throwing.
 */

/** A JSON-RPC id. `1` and `"1"` are different ids. */
export type RpcId = string | number;

export type JsonObject = { [key: string]: Json };

export interface RpcRequest {
  kind: 'request';
  id: RpcId;
  method: string;
  params: JsonObject | undefined;
}

export interface RpcNotification {
  kind: 'notification';
  method: string;
  params: JsonObject | undefined;
}

export interface RpcErrorObject {
  code: number | undefined;
  message: string;
  data: Json | undefined;
}

/** A response: exactly one of `result` / `error` is set. `id` is null for errors about unparseable requests. */
export interface RpcResponse {
  kind: 'response';
  id: RpcId | null;
  result: Json | undefined;
  error: RpcErrorObject | undefined;
}

export interface RpcInvalid {
  kind: 'invalid';
  reason: string;
}

export type RpcItem = RpcRequest | RpcNotification | RpcResponse | RpcInvalid;

export interface RpcBatch {
  kind: 'batch';
  items: RpcItem[];
}

export type RpcMessage = RpcItem | RpcBatch;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is RpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * Classifies one raw JSON-RPC value as it crossed the wire. Arrays are batches whose items are classified one by one.
 *
 * @example classifyMessage({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) // → { kind: 'request', id: 1, … }
 */
export function classifyMessage(raw: Json): RpcMessage {
  if (Array.isArray(raw)) return { kind: 'batch', items: raw.map(classifyItem) };
  return classifyItem(raw);
}

/**
 * The messages inside one raw value: the items of a batch, or the value itself. Nested arrays are invalid items.
 *
 * @example messageItems([{ jsonrpc: '2.0', method: 'a' }, { jsonrpc: '2.0', id: 2, result: {} }]).length // → 2
 */
export function messageItems(raw: Json): RpcItem[] {
  const message = classifyMessage(raw);
  return message.kind === 'batch' ? message.items : [message];
}

/**
 * How many failed responses one raw value holds (each item of a batch counts): JSON-RPC error responses, and results
 * that report a tool failure in-band (`isError: true`). What a trace's `end` line counts, so a listing of traces
 * needs no full read.
 *
 * @example countFailures([{ jsonrpc: '2.0', id: 1, error: { code: -1, message: 'no' } }]) // → { errors: 1, toolErrors: 0 }
 */
export function countFailures(
  raw: Json,
  into = { errors: 0, toolErrors: 0 },
): { errors: number; toolErrors: number } {
  if (Array.isArray(raw)) {
    for (const item of raw) if (!Array.isArray(item)) countFailures(item, into);
  } else if (isObject(raw) && typeof raw.method !== 'string') {
    if (raw.error !== undefined) into.errors += 1;
    else if (isErrorResult(raw.result)) into.toolErrors += 1;
  }
  return into;
}

/**
 * Classifies one message that is not a batch (an array item of a batch is one too; a nested array is `invalid`).
 *
 * @example classifyItem({ jsonrpc: '2.0', method: 'notifications/initialized' }).kind // → 'notification'
 */
export function classifyItem(raw: Json): RpcItem {
  if (Array.isArray(raw)) return { kind: 'invalid', reason: 'a batch inside a batch' };
  if (!isObject(raw)) return { kind: 'invalid', reason: `expected a JSON-RPC object, got ${typeName(raw)}` };
  const params = isObject(raw.params) ? raw.params : undefined;
  if (typeof raw.method === 'string') {
    if (!('id' in raw) || raw.id === undefined) return { kind: 'notification', method: raw.method, params };
    if (isId(raw.id)) return { kind: 'request', id: raw.id, method: raw.method, params };
    return { kind: 'invalid', reason: `request "${raw.method}" has an id that is not a string or number` };
  }
  if ('result' in raw || 'error' in raw) {
    const id = isId(raw.id) ? raw.id : null;
    if ('error' in raw && raw.error !== undefined) {
      return { kind: 'response', id, result: undefined, error: toErrorObject(raw.error) };
    }
    return { kind: 'response', id, result: raw.result, error: undefined };
  }
  return { kind: 'invalid', reason: 'object has neither "method" nor "result"/"error"' };
}

function toErrorObject(error: Json | undefined): RpcErrorObject {
  if (!isObject(error)) return { code: undefined, message: String(error), data: undefined };
  return {
    code: typeof error.code === 'number' ? error.code : undefined,
    message: typeof error.message === 'string' ? error.message : '',
    data: error.data,
  };
}

function typeName(value: Json): string {
  return value === null ? 'null' : typeof value;
}

/**
 * A map key for an id that keeps `1` and `"1"` apart.
 *
 * @example idKey(1) // → 'n:1'   idKey('1') // → 's:1'
 */
export function idKey(id: RpcId): string {
  return typeof id === 'number' ? `n:${id}` : `s:${id}`;
}

/**
 * An id as a person reads it: numbers bare, strings quoted (so `1` and `"1"` stay distinguishable).
 *
 * @example formatId('listen:0') // → '"listen:0"'
 */
export function formatId(id: RpcId | null): string {
  if (id === null) return 'null';
  return typeof id === 'number' ? String(id) : JSON.stringify(id);
}

/** `params.name` of a `tools/call` request. @example toolName(req) // → 'echo' */
export function toolName(item: RpcItem): string | undefined {
  return stringParam(item, 'tools/call', 'name');
}

/** `params.uri` of a `resources/*` request or notification. @example resourceUri(req) // → 'demo://a' */
export function resourceUri(item: RpcItem): string | undefined {
  if (item.kind !== 'request' && item.kind !== 'notification') return undefined;
  if (!item.method.startsWith('resources/') && !item.method.startsWith('notifications/resources/'))
    return undefined;
  const uri = item.params?.uri;
  return typeof uri === 'string' ? uri : undefined;
}

/** `params.name` of a `prompts/get` request. @example promptName(req) // → 'simple-prompt' */
export function promptName(item: RpcItem): string | undefined {
  return stringParam(item, 'prompts/get', 'name');
}

function stringParam(item: RpcItem, method: string, key: string): string | undefined {
  if (item.kind !== 'request' || item.method !== method) return undefined;
  const value = item.params?.[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * What a request is about, for one-line summaries: the tool name, resource uri or prompt name.
 *
 * @example requestTarget({ kind: 'request', id: 1, method: 'tools/call', params: { name: 'echo' } }) // → 'echo'
 */
export function requestTarget(item: RpcItem): string | undefined {
  return toolName(item) ?? promptName(item) ?? resourceUri(item);
}

function metaOf(params: JsonObject | undefined): JsonObject | undefined {
  const meta = params?._meta;
  return isObject(meta) ? meta : undefined;
}

/**
 * The progress token a request asks progress for (`params._meta.progressToken`), or the token a
 * `notifications/progress` reports on (`params.progressToken`).
 *
 * @example progressToken({ kind: 'request', id: 5, method: 'tools/call', params: { _meta: { progressToken: 5 } } }) // → 5
 */
export function progressToken(item: RpcItem): RpcId | undefined {
  if (item.kind === 'request') {
    const token = metaOf(item.params)?.progressToken;
    return isId(token) ? token : undefined;
  }
  if (item.kind === 'notification' && item.method === 'notifications/progress') {
    const token = item.params?.progressToken;
    return isId(token) ? token : undefined;
  }
  return undefined;
}

/**
 * The `subscriptions/listen` request id a 2026-era notification belongs to
 * (`params._meta["io.modelcontextprotocol/subscriptionId"]`).
 *
 * @example subscriptionId(listChanged) // → 'listen:0'
 */
export function subscriptionId(item: RpcItem): RpcId | undefined {
  if (item.kind !== 'notification') return undefined;
  const id = metaOf(item.params)?.['io.modelcontextprotocol/subscriptionId'];
  return isId(id) ? id : undefined;
}

/** The id a `notifications/cancelled` cancels. @example cancelledRequestId(cancel) // → 'listen:0' */
export function cancelledRequestId(item: RpcItem): RpcId | undefined {
  if (item.kind !== 'notification' || item.method !== 'notifications/cancelled') return undefined;
  const id = item.params?.requestId;
  return isId(id) ? id : undefined;
}

/** True for a result that reports a tool failure in-band (`{ isError: true }`). @example isErrorResult({ isError: true }) // → true */
export function isErrorResult(result: Json | undefined): boolean {
  return isObject(result) && result.isError === true;
}

/** The JSON-RPC error of a response item, if it is one. @example rpcError(item)?.code // → -32601 */
export function rpcError(item: RpcItem): RpcErrorObject | undefined {
  return item.kind === 'response' ? item.error : undefined;
}

/**
 * How a response ended: a JSON-RPC error, an in-band tool error (`isError`), a 2026-era `input_required` round, or ok.
 *
 * @example responseOutcome({ kind: 'response', id: 1, result: { isError: true }, error: undefined }) // → 'tool_error'
 */
export function responseOutcome(item: RpcResponse): 'ok' | 'error' | 'tool_error' | 'input_required' {
  if (item.error) return 'error';
  if (isErrorResult(item.result)) return 'tool_error';
  if (isObject(item.result) && item.result.resultType === 'input_required') return 'input_required';
  return 'ok';
}
