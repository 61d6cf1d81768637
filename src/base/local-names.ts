/**
 * DNS-rebinding protection, shared by every tapedeck listener (the recording proxy, HTTP replay, the collector,
 * `tapedeck mcp --http`): a web page on evil.example can make a browser send requests to 127.0.0.1 under its own
 * host name, but the browser still says which site it meant (`Host`) and where the page came from (`Origin`).
 * Both must name this machine, or a name the user allowed. Pure: host-refusals.ts words the refusals.
 */

/** Names that always mean this machine; any 127.x.x.x address and any *.localhost name do too. */
const LOCAL_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/**
 * The host name of a `Host` value or URL authority: trimmed, lower case, without the port; IPv6 keeps its brackets.
 *
 * @example hostName('LocalHost:7430') // → 'localhost'
 * @example hostName('[::1]:80') // → '[::1]'
 */
export function hostName(authority: string): string {
  const value = authority.trim().toLowerCase();
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    return close < 0 ? value : value.slice(0, close + 1);
  }
  const colon = value.indexOf(':');
  return colon < 0 ? value : value.slice(0, colon);
}

/** True for a host name (as {@link hostName} gives it) that always means this machine. */
export function isLocalName(name: string): boolean {
  return (
    LOCAL_NAMES.has(name) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name) || name.endsWith('.localhost')
  );
}

/**
 * True for an address that only this machine can reach: a listener bound there needs no warning and no token for
 * reads.
 *
 * @example isLoopback('127.0.0.1') // → true; isLoopback('0.0.0.0') // → false
 */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  return name === 'localhost' || name === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** What is wrong with a request's `Host` / `Origin`, for the listener to put in words; `ok` when nothing is. */
export type HostVerdict =
  | { kind: 'ok' }
  | { kind: 'no-host' }
  | { kind: 'host'; name: string }
  | { kind: 'origin-invalid' }
  /** `name`: the page's host name; `own`: the one origin that passes without --allow-host. */
  | { kind: 'origin'; name: string; own: string };

/**
 * Checks a request's `Host` and, when a browser sent one, its `Origin`; `allowed` says which other names pass.
 * A listener whose every URL is its own (`tapedeck view`: a token in each) passes its `port`: `Host` must then
 * name it too, as a browser that really meant this listener always does.
 *
 * `Host` must be a local name or an allowed one. `Origin` must be the listener's own origin — `http://` and the very
 * host and port the request was sent to — or name a host the user allowed: a local name is not enough, since a page
 * on another local port (`http://localhost:8080`) is another site, and a browser lets it open a websocket or send a
 * request here.
 *
 * @example judgeHostOrigin('evil.example:80', undefined, () => false) // → { kind: 'host', name: 'evil.example' }
 * @example judgeHostOrigin('127.0.0.1:7420', 'http://localhost:8080', () => false).kind // → 'origin'
 */
export function judgeHostOrigin(
  host: string | undefined,
  origin: string | undefined,
  allowed: (name: string) => boolean,
  port?: number,
): HostVerdict {
  if (host === undefined || host.trim() === '') return { kind: 'no-host' };
  const name = hostName(host);
  if (!isLocalName(name) && !allowed(name)) return { kind: 'host', name };
  if (port !== undefined && hostPort(host) !== port) return { kind: 'host', name };
  if (origin === undefined) return { kind: 'ok' };
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return { kind: 'origin-invalid' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { kind: 'origin-invalid' };
  const own = ownAuthority(host);
  if (url.protocol === 'http:' && url.host.toLowerCase() === own) return { kind: 'ok' };
  const originName = hostName(url.host);
  if (originName !== '' && (allowed(originName) || allowed(url.host.toLowerCase()))) return { kind: 'ok' };
  return { kind: 'origin', name: originName, own: `http://${own}` };
}

/** The port a `Host` value names (80 when it names none); NaN when what follows the name is no port. */
function hostPort(host: string): number {
  const value = host.trim();
  const rest = value.slice(hostName(value).length);
  if (rest === '') return 80;
  return /^:\d{1,5}$/.test(rest) ? Number(rest.slice(1)) : Number.NaN;
}

/** A `Host` value as a URL's `host` reads it: lower case, without the default port 80. */
function ownAuthority(host: string): string {
  const value = host.trim().toLowerCase();
  return value.endsWith(':80') ? value.slice(0, -3) : value;
}

/**
 * The refusal (answered 400) for a request that carries `Host` more than once, from Node's `rawHeaders`; undefined
 * for one. Node keeps only the first in `headers.host`, and a proxy or cache in front may have read the other one.
 *
 * @example duplicateHost(['Host', 'a', 'Host', 'b']) // → 'the request has 2 Host headers; send exactly one'
 */
export function duplicateHost(rawHeaders: readonly string[] | undefined): string | undefined {
  let count = 0;
  for (let i = 0; i < (rawHeaders?.length ?? 0); i += 2)
    if (rawHeaders![i]!.toLowerCase() === 'host') count += 1;
  return count > 1 ? `the request has ${count} Host headers; send exactly one` : undefined;
}
