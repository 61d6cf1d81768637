import { challengeParams, rewriteChallenge } from './documents.js';
import type { OAuthMounts } from './mounts.js';
import type { OAuthSecrets } from './secrets.js';

/**
 * The MCP side of the OAuth gateway: a 401 or 403 whose `WWW-Authenticate` names protected-resource metadata gets
 * that URL rewritten to the proxy's (the client must read the proxy's document, which names the proxy as the
 * resource), and every answer to a request carrying a Bearer token the proxy has not seen used yet, and every
 * refusal, becomes an `oauth` event: the step, its status, the token as its stable marker, and the reason given.
 */

/** What the exchange hands over, and gets back. */
export interface McpAnswerFacts {
  /** The proxy's origin, as the client reached it. */
  origin: string;
  status: number;
  /** The request's Authorization header, if any. */
  authorization: string | undefined;
  /** The upstream's response headers (name, value, …). */
  rawHeaders: readonly string[];
}

/** The headers to forward, and the `oauth` event to record (none when there is nothing to say). */
export interface McpAnswerOutcome {
  rawHeaders: string[];
  event?: Record<string, unknown>;
}

/** What the gateway keeps that reading an answer needs: its mounts, its secrets, the tokens seen in use. */
export interface GatewayState {
  mounts: OAuthMounts;
  secrets: OAuthSecrets;
  seen: Set<string>;
}

/** Seen tokens: the first answer to each is the flow's first authorised call. */
const SEEN_LIMIT = 1024;

/**
 * Reads an MCP answer for the gateway (which remembers the tokens already followed).
 *
 * @example const { rawHeaders, event } = mcpAnswer(gateway, { origin, status: 401, authorization: undefined, rawHeaders: upRes.rawHeaders });
 */
export function mcpAnswer(gateway: GatewayState, facts: McpAnswerFacts): McpAnswerOutcome {
  const seen = gateway.seen;
  const rawHeaders = [...facts.rawHeaders];
  let challenge: Record<string, string> | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() !== 'www-authenticate') continue;
    challenge ??= challengeParams(rawHeaders[i + 1]!);
    rawHeaders[i + 1] = rewriteChallenge(rawHeaders[i + 1]!, gateway.mounts, facts.origin);
  }
  const token = gateway.secrets.authorization(facts.authorization);
  const refused = facts.status === 401 || facts.status === 403;
  const fresh = token !== undefined && !seen.has(token);
  if (!refused && !fresh) return { rawHeaders };
  if (token !== undefined) {
    if (seen.size >= SEEN_LIMIT) seen.clear();
    seen.add(token);
  }
  const event: Record<string, unknown> = {
    step: refused && token === undefined ? 'challenge' : 'call',
    status: facts.status,
    // The first 401 of a flow, before any token, is how discovery starts: not a failure.
    ok: !refused || token === undefined,
  };
  if (token !== undefined) event.token = token;
  if (challenge !== undefined) {
    event.challenge = challenge;
    const reason = [challenge.error, challenge.error_description]
      .filter((part) => part !== undefined)
      .join(': ');
    if (reason !== '' && refused && token !== undefined) event.reason = reason;
  } else if (refused) {
    event.challenge = null;
  }
  return { rawHeaders, event };
}
