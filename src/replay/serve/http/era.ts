import { decodeHeaderValue } from '../../../trace/header-value.js';
import { isObject, type RpcItem, requestTarget } from '../../../trace/jsonrpc.js';
import type { Cassette } from '../../cassette/types.js';
import { type HeaderBag, header } from './http-types.js';

/**
 * Which protocol era an HTTP request speaks, and the era's HTTP rules: the 2026-07-28 revision is sessionless
 * (no `initialize`, no `Mcp-Session-Id`; `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers that must agree
 * with the body; GET answered 405), and JSON-RPC batches exist only before 2025-06-18.
 */

/** The first sessionless revision. Revisions are dates, so they compare as strings. */
export const MODERN_VERSION = '2026-07-28';
/** The revision that removed JSON-RPC batches. */
const NO_BATCHES_FROM = '2025-06-18';
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
/** The 2026-era code for headers that disagree with the body. */
export const HEADER_MISMATCH = -32020;

/**
 * True when a POST without a session speaks the sessionless era: its `MCP-Protocol-Version` header names 2026-07-28
 * or later, or it asks `server/discover`, or its requests carry the era's `_meta` protocol version.
 */
export function isModernRequest(headers: HeaderBag, items: readonly RpcItem[]): boolean {
  const version = header(headers, 'mcp-protocol-version');
  if (version !== undefined && version >= MODERN_VERSION) return true;
  return items.some(
    (item) =>
      item.kind === 'request' &&
      (item.method === 'server/discover' ||
        (isObject(item.params?._meta) && typeof item.params._meta[VERSION_KEY] === 'string')),
  );
}

/** True when a cassette can only be served sessionless: it holds no `initialize` exchange. */
export function isModernOnly(cassette: Cassette): boolean {
  return !cassette.exchanges.some((exchange) => exchange.method === 'initialize');
}

/**
 * Why a 2026-era request's headers disagree with its body (answered 400, as the era's server does), or undefined.
 *
 * @example headerMismatch({ 'mcp-method': 'tools/list' }, request('tools/call')) // → 'the Mcp-Method header …'
 */
export function headerMismatch(headers: HeaderBag, item: RpcItem): string | undefined {
  if (item.kind !== 'request' && item.kind !== 'notification') return undefined;
  for (const routing of ['mcp-method', 'mcp-name']) {
    const sent = header(headers, routing);
    if (sent !== undefined && decodeHeaderValue(sent) === undefined)
      return `Bad Request: the ${routing === 'mcp-method' ? 'Mcp-Method' : 'Mcp-Name'} header is not a valid =?base64?…?= value: ${JSON.stringify(sent.slice(0, 80))}`;
  }
  const method = decodeHeaderValue(header(headers, 'mcp-method'));
  if (method !== undefined && method !== item.method)
    return `Bad Request: the request headers and body disagree: the Mcp-Method header names "${method}" but the body calls "${item.method}"`;
  const name = decodeHeaderValue(header(headers, 'mcp-name'));
  const target = requestTarget(item);
  if (name !== undefined && target !== undefined && name !== target)
    return `Bad Request: the request headers and body disagree: the Mcp-Name header names "${name}" but the body names "${target}"`;
  const version = header(headers, 'mcp-protocol-version');
  const meta = item.params?._meta;
  const claimed = isObject(meta) ? meta[VERSION_KEY] : undefined;
  if (version !== undefined && typeof claimed === 'string' && claimed !== version)
    return `Bad Request: the request headers and body disagree: the MCP-Protocol-Version header names ${version} but _meta names ${claimed}`;
  return undefined;
}

/**
 * Why a batch is refused under `version` (undefined: batches are fine). Sessionless requests and sessions on
 * 2025-06-18 or later get no batches.
 */
export function batchRefusal(version: string | undefined, sessionless: boolean): string | undefined {
  if (sessionless) return `Invalid Request: protocol version ${MODERN_VERSION} has no JSON-RPC batches`;
  if (version !== undefined && version >= NO_BATCHES_FROM)
    return `Invalid Request: protocol version ${version} has no JSON-RPC batches (they ended with ${NO_BATCHES_FROM})`;
  return undefined;
}
