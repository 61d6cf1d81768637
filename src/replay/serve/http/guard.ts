import { isLocalName, judgeHostOrigin } from '../../../base/local-names.js';
import { type HeaderBag, header } from './http-types.js';

/**
 * DNS-rebinding protection (see src/base/local-names.ts): `Host` must name this machine, or a host the user allowed;
 * `Origin` must be this server's own origin, or an allowed host.
 */

/**
 * Why a request must be turned away (403), or undefined when its `Host` and `Origin` are acceptable.
 *
 * @example rejectForeign({ host: 'evil.example:80' }, []) // → "Host 'evil.example:80' is not a local name …"
 */
export function rejectForeign(headers: HeaderBag, allowHosts: readonly string[]): string | undefined {
  const allowed = new Set(allowHosts.map((name) => name.toLowerCase()));
  const hint = (name: string) => `(pass --allow-host ${name} to accept it)`;
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
  const bare = (name: string) => name.replace(/^\[|\]$/g, '');
  switch (verdict.kind) {
    case 'ok':
      return undefined;
    case 'no-host':
      return 'the request has no Host header';
    case 'host':
      return `Host '${host}' is not a local name ${hint(bare(verdict.name))}`;
    case 'origin-invalid':
      return `Origin '${origin}' is not a URL`;
    case 'origin':
      return isLocalName(verdict.name)
        ? `Origin '${origin}' is not this server's own origin (${verdict.own}) ${hint(bare(verdict.name))}`
        : `Origin '${origin}' is not a local site ${hint(bare(verdict.name))}`;
  }
}
