import type { HeaderRule } from './types.js';

/**
 * Which HTTP headers carry credentials: the one list the recorders' redaction and production recording
 * (`mcp-tapedeck/instrument`) share. A header whose name says credential is hidden whole, apart from a few well-known
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

/** The rule id SSE event ids are hashed under. */
export const EVENT_ID_RULE = 'sse-event-id';

/** An event id that is a counter (`7`, `e12`, `evt-3`) says nothing a reader could resume a stream with: kept. */
const COUNTER_ID = /^[A-Za-z_-]{0,16}[0-9]{1,20}$/;

/**
 * True for an SSE event id that is a plain counter, which stays as it is wherever event ids are hashed.
 *
 * @example isCounterId('e12') // true; isCounterId('8c1f…_1733_x7') // false
 */
export function isCounterId(id: string): boolean {
  return COUNTER_ID.test(id);
}

/**
 * The credential header rules, in the order they are tried (the first that matches names the marker). The MCP
 * session id is kept as a stable keyed hash: a trace still shows which requests shared a session, but the id,
 * which lets anyone holding it act in that session, is gone.
 */
export const CREDENTIAL_HEADER_RULES: readonly HeaderRule[] = [
  { id: 'mcp-session-id', type: 'header', name: 'mcp-session-id', hash: true },
  // An SSE event id resumes its stream (`Last-Event-ID`), replaying what the server sent on it: kept as a stable hash,
  // in this header and in the `eventId` of the messages that carried it, so the two still pair up.
  { id: EVENT_ID_RULE, type: 'header', name: 'last-event-id', hash: true },
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

/** The header a client resumes an SSE stream with. */
export const EVENT_ID_HEADER = 'last-event-id';

/** The header that names an MCP session over Streamable HTTP. */
export const SESSION_HEADER = 'mcp-session-id';
