import { BYTE_STYLES, formatBytes } from '../base/units.js';
import { clip, compact } from './describe.js';
import type { Exchange } from './exchange.js';
import { isObject } from './jsonrpc.js';
import type { Json } from './types.js';

/**
 * An exchange in the web viewer's cells: what the request asked and what the answer said, each in one line that a
 * table column holds (tool arguments as `name=value`, content items with their media type and size).
 */

/**
 * Tool arguments as `name=value` pairs.
 *
 * @example argumentSummary({ a: 2, b: 'three' }) // → 'a=2, b=three'
 */
export function argumentSummary(args: Json | undefined, max = 80): string {
  if (!isObject(args)) return compact(args, max);
  const parts = Object.entries(args).map(([key, value]) => `${key}=${compact(value, 40)}`);
  return clip(parts.join(', '), max);
}

/**
 * Size in bytes of base64 data, for "image/png, 12 KB".
 *
 * @example base64Bytes('aGk=') // → 2
 */
export function base64Bytes(data: string): number {
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

/**
 * One MCP content item (tool results, prompt messages, sampling) in a few words.
 *
 * @example contentSummary({ type: 'image', mimeType: 'image/png', data: 'aGk=' }) // → '[image image/png, 2 B]'
 */
export function contentSummary(item: Json): string {
  if (!isObject(item)) return compact(item, 60);
  switch (item.type) {
    case 'text':
      return typeof item.text === 'string' ? item.text : '';
    case 'image':
    case 'audio': {
      const size =
        typeof item.data === 'string' ? `, ${formatBytes(base64Bytes(item.data), BYTE_STYLES.viewer)}` : '';
      return `[${item.type} ${typeof item.mimeType === 'string' ? item.mimeType : ''}${size}]`;
    }
    case 'resource_link':
      return `[link ${typeof item.uri === 'string' ? item.uri : ''}]`;
    case 'resource': {
      const resource = isObject(item.resource) ? item.resource : {};
      return `[resource ${typeof resource.uri === 'string' ? resource.uri : ''}]`;
    }
    default:
      return compact(item, 60);
  }
}

const LIST_RESULTS: Record<string, string> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
  'roots/list': 'roots',
};

/**
 * What a response said, in one line: the error, the first text content, a list's length …
 *
 * @example resultSummary(exchange) // → '3 tools', 'error -32602 division by zero', 'isError: boom'
 */
export function resultSummary(exchange: Exchange, max = 100): string {
  const response = exchange.response;
  if (!response) return exchange.outcome === 'unanswered' ? 'no response' : 'waiting…';
  if (response.error) {
    const code = response.error.code === undefined ? '' : `${response.error.code} `;
    return clip(`error ${code}${response.error.message}`, max);
  }
  const result = response.result;
  if (!isObject(result)) return compact(result, max);
  const list = LIST_RESULTS[exchange.method];
  if (list && Array.isArray(result[list])) return `${(result[list] as Json[]).length} ${list}`;
  if (exchange.method === 'initialize' && isObject(result.serverInfo)) {
    const info = result.serverInfo;
    return clip(
      `${String(info.name ?? '?')} ${String(info.version ?? '')} · ${String(result.protocolVersion ?? '')}`,
      max,
    );
  }
  if (result.resultType === 'input_required' && isObject(result.inputRequests)) {
    const asks = Object.values(result.inputRequests).map((r) =>
      isObject(r) ? String(r.method ?? '?') : '?',
    );
    return clip(`input required: ${asks.join(', ')}`, max);
  }
  if (exchange.method === 'server/discover' && Array.isArray(result.supportedVersions))
    return clip(`versions ${result.supportedVersions.join(', ')}`, max);
  if (Array.isArray(result.content)) {
    const parts = result.content.map(contentSummary).filter((s) => s !== '');
    const head = result.isError === true ? 'isError: ' : '';
    return clip(head + (parts.length > 0 ? parts.join(' · ') : 'no content'), max);
  }
  if (Array.isArray(result.contents)) return `${result.contents.length} contents`;
  if (Array.isArray(result.messages)) return `${result.messages.length} messages`;
  if (isObject(result.content)) return clip(contentSummary(result.content), max);
  return compact(result, max);
}

/**
 * What a request asked, in one line: tool arguments, the client and its protocol, else the params without `_meta`.
 *
 * @example requestSummary(exchange) // → 'a=40, b=2'
 */
export function requestSummary(exchange: Exchange, max = 100): string {
  const params = exchange.request.params;
  if (exchange.method === 'tools/call' && isObject(params)) return argumentSummary(params.arguments, max);
  if (exchange.method === 'initialize' && isObject(params) && isObject(params.clientInfo))
    return clip(`${String(params.clientInfo.name ?? '?')} · ${String(params.protocolVersion ?? '')}`, max);
  if (params === undefined) return '';
  const { _meta: _ignored, ...rest } = params;
  return Object.keys(rest).length === 0 ? '' : compact(rest as Json, max);
}
