import { hostName, isLocalName, judgeHostOrigin } from '../../base/local-names.js';

/**
 * DNS-rebinding protection for a local listener: a web page on evil.example can make a browser send requests to
 * 127.0.0.1 under its own host name, so a request is answered only when its `Host` names this machine — or a name
 * the user allowed — and its `Origin`, when a browser sent one, is the proxy's own origin or an allowed name.
 */

/** What the guard lets through besides local names: a list of host names, or `*` for any. */
export type AllowedHosts = ReadonlySet<string> | '*';

/**
 * The allowed set from `--allow-host` values (case-insensitive; `*` allows any host).
 *
 * @example allowedHosts(['mcp.example.com']) // Set { 'mcp.example.com' }
 */
export function allowedHosts(names: readonly string[]): AllowedHosts {
  if (names.includes('*')) return '*';
  return new Set(names.map((name) => hostName(name)));
}

/**
 * Why a request must be refused, or undefined when it may pass.
 *
 * @example checkLocalRequest('evil.example:7430', undefined, new Set()) // "Host 'evil.example' is not …"
 */
export function checkLocalRequest(
  host: string | undefined,
  origin: string | undefined,
  allow: AllowedHosts,
): string | undefined {
  if (allow === '*') return undefined;
  const hint = (name: string) =>
    `this recording proxy answers only localhost, 127.0.0.1 and [::1] (start it with --allow-host ${name} to allow it)`;
  const verdict = judgeHostOrigin(host, origin, (name) => allow.has(name));
  switch (verdict.kind) {
    case 'ok':
      return undefined;
    case 'no-host':
      return `a request without a Host header was refused: ${hint('NAME')}`;
    case 'host':
      return `Host '${verdict.name}' is not local: ${hint(verdict.name)}`;
    case 'origin-invalid':
      return `Origin '${origin}' is not a URL: ${hint('NAME')}`;
    case 'origin':
      return isLocalName(verdict.name)
        ? `Origin '${origin}' is not this proxy's own origin (${verdict.own}): a page of another site or local port may not use it (start it with --allow-host ${verdict.name} to allow it)`
        : `Origin '${origin}' is not local: ${hint(verdict.name === '' ? 'NAME' : verdict.name)}`;
  }
}
