import { tokenMatches } from './home.js';

/**
 * Who may talk to the collector. DNS rebinding: a web page on evil.example can make a browser send requests to
 * 127.0.0.1 under its own name, so `Host` must name this machine (or a name allowed with --allow-host), and a
 * browser's `Origin`, when sent, too. Cross-site websockets are not stopped by browsers at all: the same check
 * runs on the upgrade request.
 */

/** Names that always mean this machine; any 127.x.x.x address and *.localhost do too. */
const LOCAL_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** The host name of a `Host` value or URL authority, lower-case, without the port; IPv6 keeps its brackets. */
export function hostName(authority: string): string {
  const value = authority.trim().toLowerCase();
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    return close < 0 ? value : value.slice(0, close + 1);
  }
  const colon = value.indexOf(':');
  return colon < 0 ? value : value.slice(0, colon);
}

function isLocalName(host: string): boolean {
  return (
    LOCAL_NAMES.has(host) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host.endsWith('.localhost')
  );
}

/**
 * Why a request must be refused for its `Host` or `Origin`, or undefined when it may pass.
 *
 * @example checkHostOrigin('evil.example:7420', undefined, new Set()) // "Host 'evil.example' is not …"
 */
export function checkHostOrigin(
  host: string | undefined,
  origin: string | undefined,
  allowed: ReadonlySet<string>,
): string | undefined {
  const ok = (name: string) => isLocalName(name) || allowed.has(name);
  const hint = (name: string) =>
    `the collector answers localhost, 127.0.0.1 and [::1] only (bind it with --host and name ${name} with --allow-host to allow it)`;
  if (host === undefined || host.trim() === '')
    return `a request without a Host header was refused: ${hint('a host')}`;
  const name = hostName(host);
  if (!ok(name)) return `Host '${name}' is not allowed: ${hint(name)}`;
  if (origin === undefined) return undefined;
  let originHost: string;
  try {
    originHost = hostName(new URL(origin).host);
  } catch {
    return `Origin '${origin}' is not allowed: ${hint('its host')}`;
  }
  if (originHost === '' || !ok(originHost))
    return `Origin '${origin}' is not allowed: ${hint(originHost || 'its host')}`;
  return undefined;
}

/** The subprotocol a browser offers to carry the token on a websocket: `tapedeck.token.<token>`. */
export const TOKEN_PROTOCOL_PREFIX = 'tapedeck.token.';

/** The subprotocol the collector selects on the live websocket. */
export const LIVE_PROTOCOL = 'tapedeck';

/** Where a request may carry the token. Query and subprotocol only count where the caller says (websockets). */
export interface PresentedToken {
  authorization?: string | undefined;
  query?: string | undefined;
  protocols?: string | undefined;
}

/** True when one of the presented credentials is the token. */
export function hasToken(presented: PresentedToken, token: string): boolean {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(presented.authorization ?? '')?.[1];
  if (tokenMatches(bearer, token)) return true;
  if (tokenMatches(presented.query, token)) return true;
  for (const protocol of (presented.protocols ?? '').split(',')) {
    const value = protocol.trim();
    if (
      value.startsWith(TOKEN_PROTOCOL_PREFIX) &&
      tokenMatches(value.slice(TOKEN_PROTOCOL_PREFIX.length), token)
    )
      return true;
  }
  return false;
}
