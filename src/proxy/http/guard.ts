import { type GuardWords, hostRefusal } from '../../base/host-refusals.js';
import { hostName, judgeHostOrigin } from '../../base/local-names.js';

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
 * @example checkLocalRequest('evil.example:7430', undefined, new Set()) // "Host 'evil.example:7430' is not …"
 */
export function checkLocalRequest(
  host: string | undefined,
  origin: string | undefined,
  allow: AllowedHosts,
): string | undefined {
  if (allow === '*') return undefined;
  const verdict = judgeHostOrigin(host, origin, (name) => allow.has(name));
  return hostRefusal(verdict, { host, origin }, PROXY_WORDS);
}

const PROXY_WORDS: GuardWords = {
  listener: 'this recording proxy',
  allow: (name) => `start it with --allow-host ${name} to allow it`,
};
