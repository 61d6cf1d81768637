/**
 * DNS-rebinding protection, shared by every tapedeck listener (the recording proxy, HTTP replay, the collector,
 * `tapedeck mcp --http`): a web page on evil.example can make a browser send requests to 127.0.0.1 under its own
 * host name, but the browser still says which site it meant (`Host`) and where the page came from (`Origin`).
 * Both must name this machine, or a name the user allowed. Pure: each listener words its own refusal.
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

/** What is wrong with a request's `Host` / `Origin`, for the listener to put in words; `ok` when nothing is. */
export type HostVerdict =
  | { kind: 'ok' }
  | { kind: 'no-host' }
  | { kind: 'host'; name: string }
  | { kind: 'origin-invalid' }
  | { kind: 'origin'; name: string };

/**
 * Checks a request's `Host` and, when a browser sent one, its `Origin`; `allowed` says which other names pass.
 *
 * @example judgeHostOrigin('evil.example:80', undefined, () => false) // → { kind: 'host', name: 'evil.example' }
 */
export function judgeHostOrigin(
  host: string | undefined,
  origin: string | undefined,
  allowed: (name: string) => boolean,
): HostVerdict {
  const ok = (name: string) => isLocalName(name) || allowed(name);
  if (host === undefined || host.trim() === '') return { kind: 'no-host' };
  const name = hostName(host);
  if (!ok(name)) return { kind: 'host', name };
  if (origin === undefined) return { kind: 'ok' };
  let originName: string;
  try {
    originName = hostName(new URL(origin).host);
  } catch {
    return { kind: 'origin-invalid' };
  }
  return originName !== '' && ok(originName) ? { kind: 'ok' } : { kind: 'origin', name: originName };
}
