import { LegacySseUpstream } from './legacy.js';
import { StreamableUpstream } from './streamable.js';
import type { Upstream, UpstreamOptions } from './types.js';

export { causeOf } from './fetch.js';
export { ERA2026_VERSION_KEY, eraVersionOf, postHeaders } from './headers.js';
export { LegacySseUpstream } from './legacy.js';
export { readSse, type SseEvent } from './sse.js';
export { StreamableUpstream } from './streamable.js';
export {
  type HttpEnvelope,
  type SendResult,
  type SentMessage,
  UPSTREAM_DEFAULTS,
  UPSTREAM_TRANSPORTS,
  type Upstream,
  UpstreamError,
  type UpstreamErrorKind,
  type UpstreamEvent,
  type UpstreamHooks,
  type UpstreamMessage,
  type UpstreamOptions,
  type UpstreamTimeouts,
  type UpstreamTransport,
} from './types.js';

/**
 * A raw MCP client of a remote server, by transport: Streamable HTTP (default) or legacy SSE. Call `start()`
 * before the first `send()`.
 *
 * @example
 * const upstream = createUpstream({ url: 'http://127.0.0.1:3001/mcp', onMessage: (m) => console.log(m.text) });
 * await upstream.start();
 * await upstream.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params });
 */
export function createUpstream(options: UpstreamOptions): Upstream {
  return options.transport === 'sse' ? new LegacySseUpstream(options) : new StreamableUpstream(options);
}
