import { isObject } from '../trace/jsonrpc.js';
import type { Json } from '../trace/types.js';

/**
 * The MCP headers a POST carries, decided from the message itself and what the session knows so far. A message of
 * the 2026-07-28 era (its `_meta` names the protocol version) is self-describing: it carries that version, the
 * method, and for the calls that name a thing (tools/call, prompts/get, resources/read) the thing's name, so a
 * gateway can route without reading the body. Older messages carry the session id and the version the
 * `initialize` answer settled on.
 */

/** The `_meta` key a 2026-era request states its protocol version under. */
export const ERA2026_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

/** Methods whose target is named in an `Mcp-Name` header, and where in the params the name is. */
const NAMED: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

export interface SessionFacts {
  sessionId: string | undefined;
  protocolVersion: string | undefined;
}

/**
 * The headers for one POSTed message (a single message or a batch), on top of the user's own.
 *
 * @example
 * postHeaders({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { sessionId: 's1', protocolVersion: '2025-11-25' }, {})
 * // → { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
 * //     'mcp-session-id': 's1', 'mcp-protocol-version': '2025-11-25' }
 */
export function postHeaders(
  message: Json,
  session: SessionFacts,
  extra: Readonly<Record<string, string>>,
): Record<string, string> {
  const headers: Record<string, string> = {
    ...lowerKeys(extra),
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  Object.assign(headers, sessionHeaders(session));
  const first = Array.isArray(message) ? message[0] : message;
  const era = eraVersionOf(first);
  if (era !== undefined && isObject(first) && typeof first.method === 'string') {
    headers['mcp-protocol-version'] = era;
    headers['mcp-method'] = first.method;
    const key = NAMED[first.method];
    const name = key !== undefined && isObject(first.params) ? first.params[key] : undefined;
    if (typeof name === 'string') headers['mcp-name'] = name;
  }
  return headers;
}

/** The session id and negotiated version, for GET and DELETE as much as for POST. */
export function sessionHeaders(session: SessionFacts): Record<string, string> {
  const headers: Record<string, string> = {};
  if (session.sessionId !== undefined) headers['mcp-session-id'] = session.sessionId;
  if (session.protocolVersion !== undefined) headers['mcp-protocol-version'] = session.protocolVersion;
  return headers;
}

/** The protocol version a 2026-era message states in its `_meta`; undefined for older messages. */
export function eraVersionOf(message: Json | undefined): string | undefined {
  if (!isObject(message) || !isObject(message.params)) return undefined;
  const meta = message.params._meta;
  const version = isObject(meta) ? meta[ERA2026_VERSION_KEY] : undefined;
  return typeof version === 'string' ? version : undefined;
}

/** A fetch `Headers` as a plain object with lower-case names (repeated headers joined as fetch joins them). */
export function headerObject(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/** The same headers with lower-case names (HTTP names are case-insensitive; traces keep one spelling). */
export function lowerKeys(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
