import { type HeaderBag, header } from './http-types.js';
import { LOCAL_HOSTS } from './options.js';

/**
 * DNS-rebinding protection: a web page on an evil domain can make a browser send requests to 127.0.0.1 once its
 * domain resolves there, but the browser still says which site it meant (`Host`) and where the page came from
 * (`Origin`). Both must name this machine — or a host the user allowed.
 */

/**
 * Why a request must be turned away (403), or undefined when its `Host` and `Origin` are acceptable.
 *
 * @example rejectForeign({ host: 'evil.example:80' }, []) // → "Host 'evil.example:80' is not a local name …"
 */
export function rejectForeign(headers: HeaderBag, allowHosts: readonly string[]): string | undefined {
  const allowed = new Set([...LOCAL_HOSTS, ...allowHosts].map((name) => name.toLowerCase()));
  const hint = (name: string) => `(pass --allow-host ${name} to accept it)`;
  const host = header(headers, 'host');
  if (host === undefined || host === '') return 'the request has no Host header';
  const hostName = nameOf(host);
  if (!allowed.has(hostName) && !allowed.has(host.toLowerCase()))
    return `Host '${host}' is not a local name ${hint(hostName)}`;
  const origin = header(headers, 'origin');
  if (origin === undefined) return undefined;
  let originName: string;
  try {
    originName = nameOf(new URL(origin).host);
  } catch {
    return `Origin '${origin}' is not a URL`;
  }
  if (!allowed.has(originName)) return `Origin '${origin}' is not a local site ${hint(originName)}`;
  return undefined;
}

/** The host name of a `Host` value, lower case, without port or IPv6 brackets. */
function nameOf(host: string): string {
  const value = host.toLowerCase();
  if (value.startsWith('[')) return value.slice(1, value.indexOf(']') > 0 ? value.indexOf(']') : undefined);
  const colon = value.lastIndexOf(':');
  // More than one colon without brackets: a bare IPv6 address, no port.
  if (colon > 0 && value.indexOf(':') === colon) return value.slice(0, colon);
  return value;
}
