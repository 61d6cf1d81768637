import { type GuardWords, hostRefusal } from '../../../base/host-refusals.js';
import { judgeHostOrigin } from '../../../base/local-names.js';
import { type HeaderBag, header } from './http-types.js';

/**
 * DNS-rebinding protection (see src/base/local-names.ts): `Host` must name this machine, or a host the user allowed;
 * `Origin` must be this server's own origin, or an allowed host.
 */

/**
 * Why a request must be turned away (403), or undefined when its `Host` and `Origin` are acceptable.
 *
 * @example rejectForeign({ host: 'evil.example:80' }, []) // → "Host 'evil.example:80' is not allowed: …"
 */
export function rejectForeign(headers: HeaderBag, allowHosts: readonly string[]): string | undefined {
  const allowed = new Set(allowHosts.map((name) => name.toLowerCase()));
  const host = header(headers, 'host');
  const origin = header(headers, 'origin');
  const verdict = judgeHostOrigin(
    host,
    origin,
    // An allowed name may be given with or without IPv6 brackets, or as the whole `host:port`.
    (name) =>
      allowed.has(name) ||
      allowed.has(name.replace(/^\[|\]$/g, '')) ||
      allowed.has(host?.toLowerCase() ?? ''),
  );
  return hostRefusal(verdict, { host, origin }, SERVER_WORDS);
}

const SERVER_WORDS: GuardWords = {
  listener: 'this server',
  // Names are allowed with or without IPv6 brackets; the hint gives the plainer spelling.
  allow: (name) => `pass --allow-host ${name.replace(/^\[|\]$/g, '')} to accept it`,
};
