import { type GuardWords, hostRefusal } from '../base/host-refusals.js';
import { judgeHostOrigin } from '../base/local-names.js';
import { tokenMatches } from './home.js';

/**
 * Who may talk to the collector. DNS rebinding: a web page on evil.example can make a browser send requests to
 * 127.0.0.1 under its own name, so `Host` must name this machine (or a name allowed with --allow-host), and a
 * browser's `Origin`, when sent, must be the collector's own origin (scheme, host and port) or an allowed name.
 * Cross-site websockets are not stopped by browsers at all: the same check runs on the upgrade request.
 */

/**
 * Why a request must be refused for its `Host` or `Origin`, or undefined when it may pass.
 *
 * @example checkHostOrigin('evil.example:7420', undefined, new Set()) // "Host 'evil.example:7420' is not …"
 */
export function checkHostOrigin(
  host: string | undefined,
  origin: string | undefined,
  allowed: ReadonlySet<string>,
): string | undefined {
  const verdict = judgeHostOrigin(host, origin, (name) => allowed.has(name));
  return hostRefusal(verdict, { host, origin }, COLLECTOR_WORDS);
}

const COLLECTOR_WORDS: GuardWords = {
  listener: 'the collector',
  allow: (name) => `bind it with --host and name ${name} with --allow-host to allow it`,
};

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

/** Every credential presented, in the order they are checked. */
export function presentedSecrets(presented: PresentedToken): string[] {
  const secrets: string[] = [];
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(presented.authorization ?? '')?.[1];
  if (bearer !== undefined) secrets.push(bearer);
  if (presented.query !== undefined) secrets.push(presented.query);
  for (const protocol of (presented.protocols ?? '').split(',')) {
    const value = protocol.trim();
    if (value.startsWith(TOKEN_PROTOCOL_PREFIX)) secrets.push(value.slice(TOKEN_PROTOCOL_PREFIX.length));
  }
  return secrets.slice(0, 4);
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
