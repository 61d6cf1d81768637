import type { HeaderRule } from './types.js';

/**
 * Which HTTP headers carry credentials: the one list the recorders' redaction and production recording
 * (`tapedeck/instrument`) share. A header whose name says credential is hidden whole, apart from a few well-known
 * names that only look like one.
 */

/** Words that make a header name a credential's: `x-goog-api-key`, `x-auth`, `x-csrf`, `x-hub-signature`. */
export const CREDENTIAL_HEADER_WORDS = [
  'token',
  'secret',
  'password',
  'passwd',
  'cookie',
  'auth',
  'session',
  'signature',
  'credential',
  'key',
  'api',
  'csrf',
  'xsrf',
] as const;

/**
 * Headers whose names hold one of those words but whose values are no secret: challenges, CORS answers, protocol
 * versions, WebSocket handshakes, idempotency keys.
 */
export const HARMLESS_HEADERS: readonly string[] = [
  'www-authenticate',
  'proxy-authenticate',
  'authentication-info',
  'proxy-authentication-info',
  'access-control-allow-credentials',
  'sec-websocket-key',
  'sec-websocket-accept',
  'idempotency-key',
  'api-version',
  'x-api-version',
  'x-github-api-version',
  'x-ms-api-version',
];

/**
 * The credential header rules, in the order they are tried (the first that matches names the marker). The MCP
 * session id is kept as a stable keyed hash: a trace still shows which requests shared a session, but the id,
 * which lets anyone holding it act in that session, is gone.
 */
export const CREDENTIAL_HEADER_RULES: readonly HeaderRule[] = [
  { id: 'mcp-session-id', type: 'header', name: 'mcp-session-id', hash: true },
  { id: 'authorization-header', type: 'header', name: 'authorization' },
  { id: 'proxy-authorization-header', type: 'header', name: 'proxy-authorization' },
  { id: 'set-cookie-header', type: 'header', name: 'set-cookie' },
  // x-api-key, api-key (Azure OpenAI), x-goog-api-key …
  { id: 'api-key-header', type: 'header', name: 'api-key', contains: true, exclude: [...HARMLESS_HEADERS] },
  ...CREDENTIAL_HEADER_WORDS.map(
    (word): HeaderRule => ({
      id: `${word}-header`,
      type: 'header',
      name: word,
      contains: true,
      exclude: [...HARMLESS_HEADERS],
    }),
  ),
];

/** The header that names an MCP session over Streamable HTTP. */
export const SESSION_HEADER = 'mcp-session-id';
