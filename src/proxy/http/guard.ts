/**
 * DNS-rebinding protection for a local listener: a web page on evil.example can make a browser send requests to
 * 127.0.0.1 under its own host name, so a request is answered only when its `Host` (and `Origin`, when a browser
 * sent one) names this machine — or a name the user allowed.
 */

/** Names that always mean this machine. Any 127.x.x.x address does too. */
const LOCAL_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** What the guard lets through besides local names: a list of host names, or `*` for any. */
export type AllowedHosts = ReadonlySet<string> | '*';

/**
 * The allowed set from `--allow-host` values (case-insensitive; `*` allows any host).
 *
 * @example allowedHosts(['mcp.example.com']) // Set { 'mcp.example.com' }
 */
export function allowedHosts(names: readonly string[]): AllowedHosts {
  if (names.includes('*')) return '*';
  return new Set(names.map((name) => hostOnly(name.trim().toLowerCase())));
}

/** The host name of a `Host` header value or URL authority, without the port; IPv6 keeps its brackets. */
export function hostOnly(authority: string): string {
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    return close < 0 ? authority : authority.slice(0, close + 1);
  }
  const colon = authority.indexOf(':');
  return colon < 0 ? authority : authority.slice(0, colon);
}

function isLocal(host: string): boolean {
  return (
    LOCAL_NAMES.has(host) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host.endsWith('.localhost')
  );
}

function allowed(host: string, allow: AllowedHosts): boolean {
  return allow === '*' || isLocal(host) || allow.has(host);
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
  if (host === undefined || host === '')
    return `a request without a Host header was refused: ${hint('NAME')}`;
  const hostName = hostOnly(host.trim().toLowerCase());
  if (!allowed(hostName, allow)) return `Host '${hostName}' is not local: ${hint(hostName)}`;
  if (origin === undefined) return undefined;
  let originHost: string;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    return `Origin '${origin}' is not a URL: ${hint('NAME')}`;
  }
  const originName = hostOnly(originHost);
  if (originName === '' || !allowed(originName, allow))
    return `Origin '${origin}' is not local: ${hint(originName === '' ? 'NAME' : originName)}`;
  return undefined;
}
