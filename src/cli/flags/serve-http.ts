import { parseListenAddress } from '../../replay/serve/http/options.js';
import { usageError } from '../errors.js';

/**
 * `--http HOST:PORT` and the repeatable `--allow-host NAME`: an HTTP listener in place of stdio, for the servers
 * `replay` and `mcp` run. Each command declares the flags itself (with its own help); the checks are shared.
 */

export interface ServeHttpFlags {
  http?: string | undefined;
  allowHost?: string[] | undefined;
}

/** Where to listen and which names besides local ones Host / Origin may carry. */
export interface ServeHttp {
  host: string;
  port: number;
  allowHosts: string[];
}

/**
 * The listener the flags ask for, checked; undefined for stdio. `--allow-host` without `--http` is a usage error,
 * and so is a name that is no host name.
 *
 * @example serveHttpOf({ http: '127.0.0.1:0', allowHost: ['mcp.test'] }) // → { host: '127.0.0.1', port: 0, allowHosts: ['mcp.test'] }
 */
export function serveHttpOf(flags: ServeHttpFlags): ServeHttp | undefined {
  const front = flags.http === undefined ? undefined : parseListenAddress(flags.http);
  const allowHosts = flags.allowHost ?? [];
  if (front === undefined) {
    if (allowHosts.length > 0) throw usageError('--allow-host needs --http HOST:PORT');
    return undefined;
  }
  for (const name of allowHosts)
    if (!/^[A-Za-z0-9.:[\]-]+$/.test(name))
      throw usageError(`--allow-host must be a host name such as example.test; got '${name}'`);
  return { ...front, allowHosts };
}
