import { TapedeckError } from '../../../base/errors.js';
import type { FaultOptions } from '../../../faults/options.js';
import type { ReplayOptions } from '../../options.js';
import type { HttpServeEvent } from './events.js';

/**
 * The HTTP front door's knobs, with their defaults in one place.
 */

/**
 * `streamable`: Streamable HTTP — POST answers as SSE or JSON, a GET stream per session, DELETE, `Mcp-Session-Id`,
 * and the sessionless 2026-07-28 era on the same endpoint. `sse`: the legacy HTTP+SSE pair (`GET` opens the stream,
 * `POST /message?sessionId=` carries client messages, every answer goes down the stream).
 */
export type HttpFlavour = 'streamable' | 'sse';

export interface HttpReplayOptions extends ReplayOptions, FaultOptions {
  /** Interface to bind; anything but a loopback address exposes the cassette to the network. */
  host?: string | undefined;
  /** 0 picks a free port (read it from `url`). */
  port?: number | undefined;
  transport?: HttpFlavour | undefined;
  /** The path `url` names. Every path is served; this is the one to tell clients. */
  path?: string | undefined;
  /** Host names accepted in `Host` and `Origin` besides the local ones (DNS-rebinding protection). */
  allowHosts?: readonly string[] | undefined;
  onEvent?: ((event: HttpServeEvent) => void) | undefined;
}

export const HTTP_REPLAY_DEFAULTS = {
  host: '127.0.0.1',
  port: 0,
  transport: 'streamable' as HttpFlavour,
  /** Where Streamable HTTP clients are pointed when the cassette names no URL of its own. */
  path: '/mcp',
  /** Where legacy SSE clients are pointed. */
  ssePath: '/sse',
  /** Where a legacy SSE session's endpoint event sends client messages. */
  messagePath: '/message',
  /** Larger POST bodies get 413. */
  maxBodyBytes: 4 * 1024 * 1024,
  /** Messages kept for a session's GET stream while it is not open (the oldest go first). */
  maxBuffered: 1000,
  /** SSE events kept per stream for a client that resumes with `Last-Event-ID`. */
  maxHistory: 256,
  /** The pause after a progress event before the next one (see sse.ts). */
  progressGapMs: 10,
} as const;

/**
 * Reads `HOST:PORT` (`127.0.0.1:8080`, `localhost:0`, `[::1]:9000`). Throws TapedeckError('usage') naming the
 * value and the shape expected.
 *
 * @example parseListenAddress('127.0.0.1:0') // → { host: '127.0.0.1', port: 0 }
 */
export function parseListenAddress(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d+)$/.exec(value.trim());
  if (!match) {
    throw new TapedeckError(
      'usage',
      `--http must be HOST:PORT such as 127.0.0.1:8080 (port 0 picks a free one); got '${value}'`,
    );
  }
  const port = Number(match[3]);
  if (!Number.isInteger(port) || port > 65535) {
    throw new TapedeckError('usage', `--http port must be 0 to 65535; got '${match[3]}' in '${value}'`);
  }
  return { host: (match[1] ?? match[2])!, port };
}

/**
 * The URL a client uses: `http://HOST:PORT/path`, IPv6 hosts in brackets.
 *
 * @example listenUrl('::1', 8080, '/mcp') // → 'http://[::1]:8080/mcp'
 */
export function listenUrl(host: string, port: number, path: string): string {
  const name = host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}${path.startsWith('/') ? path : `/${path}`}`;
}

/**
 * The path to tell clients: the one the cassette was recorded on, when its meta names a URL of the same kind of
 * HTTP transport, else the default (`/mcp`, or `/sse` for legacy SSE).
 *
 * @example servedPath({ url: 'http://127.0.0.1:3001/api/mcp', transport: 'http' }, 'streamable') // → '/api/mcp'
 */
export function servedPath(recorded: { url?: unknown; transport?: unknown }, transport: HttpFlavour): string {
  const fallback = transport === 'sse' ? HTTP_REPLAY_DEFAULTS.ssePath : HTTP_REPLAY_DEFAULTS.path;
  const same = recorded.transport === (transport === 'sse' ? 'sse' : 'http');
  if (!same || typeof recorded.url !== 'string') return fallback;
  try {
    const path = new URL(recorded.url).pathname;
    return path === '' || path === '/' ? fallback : path;
  } catch {
    return fallback;
  }
}
