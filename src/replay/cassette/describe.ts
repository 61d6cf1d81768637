import { isObject, type JsonObject } from '../../trace/jsonrpc.js';
import { canonicalJson, type NormalizedRequest } from './normalize.js';

/**
 * Requests as one short phrase for miss messages and reports: method, what it is about (tool, prompt, resource),
 * then the rest of the normalized params as canonical JSON.
 */

/** Where each method keeps what it is about. */
const TARGETS: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'resources/subscribe': 'uri',
  'resources/unsubscribe': 'uri',
};

/** Methods whose `arguments` are shown bare after the target, as people write a call. */
const CALLS = new Set(['tools/call', 'prompts/get']);

export const DESCRIBE_MAX = 100;

/**
 * @example describeRequest({ method: 'tools/call', params: { name: 'get-sum', arguments: { b: 3, a: 2 } } })
 * // → 'tools/call get-sum {"a":2,"b":3}'
 */
export function describeRequest(request: NormalizedRequest, max = DESCRIBE_MAX): string {
  const parts = [request.method];
  const rest: JsonObject = { ...request.params };
  const targetKey = TARGETS[request.method];
  const target = targetKey === undefined ? undefined : rest[targetKey];
  if (targetKey !== undefined && typeof target === 'string') {
    parts.push(target);
    delete rest[targetKey];
  }
  if (CALLS.has(request.method) && isObject(rest.arguments)) {
    if (Object.keys(rest.arguments).length > 0) parts.push(clip(canonicalJson(rest.arguments), max));
    delete rest.arguments;
  }
  if (Object.keys(rest).length > 0) parts.push(clip(canonicalJson(rest), max));
  return parts.join(' ');
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
