import { canonicalJson } from './canonical-json.js';
import {
  formatId,
  isObject,
  type JsonObject,
  type RpcId,
  type RpcNotification,
  type RpcRequest,
  requestTarget,
} from './jsonrpc.js';
import type { NormalizedRequest } from './normalize.js';
import type { Json } from './types.js';

/**
 * MCP messages in a phrase, for people: what a request is about, what an answer said, what a notification
 * reported — never the whole payload. Every place that shows a message in one line takes it from here and from
 * its two companions: the `tapedeck show` timeline's details (describe-detail.ts), the web viewer's cells
 * (describe-summary.ts), and here the headlines, the request described by its matching key (replay's misses,
 * diff, verify) and the text tools they share. Pure, so the viewer shares it.
 */

/** How long a timeline detail may get before the row cuts it again to the space it has. */
export const DETAIL_MAX = 300;

/** How long a request description (miss messages, reports) may get per part. */
export const DESCRIBE_MAX = 100;

/**
 * Cuts text to at most `max` characters, an ellipsis included; with `fold` (the default) runs of white space
 * become one space and the ends are trimmed first. Counts code points, so a character is never cut in half, and
 * reads only as far as it keeps: a multi-megabyte value costs what is shown.
 *
 * @example clip('a\n  b', 10) // → 'a b'
 * @example clip('abcdefg', 6) // → 'abcde…'
 */
export function clip(text: string, max = DETAIL_MAX, { fold = true }: { fold?: boolean } = {}): string {
  const kept: string[] = [];
  let space = false;
  for (const char of text) {
    if (fold && /\s/.test(char)) {
      space = kept.length > 0;
      continue;
    }
    if (space) {
      kept.push(' ');
      space = false;
    }
    kept.push(char);
    if (kept.length > max) break;
  }
  if (kept.length <= max) return kept.join('');
  return `${wholeMarkers(kept.slice(0, max - 1).join(''))}…`;
}

/** Every marker redaction leaves starts with this. */
const MARKER_START = '[REDACTED';

/**
 * A cut-off text without a redaction marker cut in two at its end: a marker shown in part (`[REDACTED:githu`) says
 * neither what was hidden nor, to a reader, that anything was; the text stops before it instead.
 *
 * @example wholeMarkers('token [REDACTED:githu') // → 'token '
 */
export function wholeMarkers(cut: string): string {
  const open = cut.lastIndexOf(MARKER_START);
  return open >= 0 && cut.indexOf(']', open) < 0 ? cut.slice(0, open) : cut;
}

/**
 * A value as short JSON (strings as they are), cut at `max` characters.
 *
 * @example compact({ a: 1, b: 'x' }, 10) // → '{"a":1,"b…'
 */
export function compact(value: Json | undefined, max = 80): string {
  if (value === undefined) return '';
  return clip(typeof value === 'string' ? value : JSON.stringify(value), max);
}

/** JSON without `_meta` (protocol bookkeeping, not what the call was about); '' for nothing left. */
export function withoutMeta(value: Json | undefined): string {
  if (value === undefined) return '';
  if (isObject(value)) {
    const { _meta, ...rest } = value;
    void _meta;
    return Object.keys(rest).length === 0 ? '' : JSON.stringify(rest);
  }
  return JSON.stringify(value);
}

export function str(value: Json | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `name version` of a clientInfo / serverInfo. */
export function who(info: Json | undefined): string | undefined {
  if (!isObject(info)) return undefined;
  const name = str(info.name);
  const version = str(info.version);
  return name ? (version ? `${name} ${version}` : name) : undefined;
}

/** `3 tools`, `1 root`: the length of a list with its noun. */
export function count(list: Json | undefined, noun: string): string | undefined {
  if (!Array.isArray(list)) return undefined;
  return `${list.length} ${noun}${list.length === 1 ? '' : 's'}`;
}

/** The text blocks of MCP content (tool results, sampling), other blocks as `[type]`. */
export function contentText(content: Json | undefined): string | undefined {
  const blocks = Array.isArray(content) ? content : content === undefined ? [] : [content];
  const parts: string[] = [];
  for (const block of blocks) {
    if (!isObject(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
    else if (typeof block.type === 'string') parts.push(`[${block.type}]`);
  }
  return parts.length > 0 ? parts.join(' ') : undefined;
}

/** A message's `_meta`, when it is an object. */
export function metaOf(params: JsonObject | undefined): JsonObject | undefined {
  return isObject(params?._meta) ? params._meta : undefined;
}

/**
 * A request's headline: method plus what it is about (tool name, resource uri, prompt name).
 *
 * @example requestLabel({ kind: 'request', id: 5, method: 'tools/call', params: { name: 'echo' } }) // → 'tools/call echo'
 */
export function requestLabel(request: RpcRequest | RpcNotification): string {
  const target = requestTarget(request);
  return target === undefined ? request.method : `${request.method} ${target}`;
}

/**
 * A message id as rows tag it, so that 1 and "1" stay apart.
 *
 * @example idTag(1) // → '#1'; idTag('1') // → '#"1"'; idTag(null) // → '#null'
 */
export function idTag(id: RpcId | null): string {
  return id === null ? '#null' : `#${typeof id === 'number' ? id : formatId(id)}`;
}

/** A notification's headline: method plus resource uri when there is one. */
export function notificationLabel(notification: RpcNotification): string {
  return requestLabel(notification);
}

/** Where each method keeps what it is about, for descriptions of normalized requests. */
const TARGETS: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'resources/subscribe': 'uri',
  'resources/unsubscribe': 'uri',
};

/** Methods whose `arguments` are shown bare after the target, as people write a call. */
const CALLS = new Set(['tools/call', 'prompts/get']);

/**
 * A normalized request (what matching compares) as one phrase for miss messages and reports: method, what it is
 * about, then the rest of the params as canonical JSON, each part cut after `max` characters.
 *
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
    if (Object.keys(rest.arguments).length > 0) parts.push(cut(canonicalJson(rest.arguments), max));
    delete rest.arguments;
  }
  if (Object.keys(rest).length > 0) parts.push(cut(canonicalJson(rest), max));
  return parts.join(' ');
}

/** JSON kept as written, `max` characters and an ellipsis when longer. */
function cut(text: string, max: number): string {
  return clip(text, max + 1, { fold: false });
}
