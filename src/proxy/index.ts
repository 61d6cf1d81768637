/**
 * `mcp-tapedeck/proxy`: the recorders that sit between a client and a server — the stdio proxy, the recording HTTP
 * reverse proxy, and the stdio bridge to a server reached over HTTP. Pumps, stdout handling, the HTTP recorder's
 * parts and the command line's session wrappers are internal.
 */
export type { UpstreamTimeouts, UpstreamTransport } from '../upstream/types.js';
export {
  HTTP_BRIDGE_DEFAULTS,
  type HttpBridgeOptions,
  type HttpBridgeResult,
  runHttpBridge,
} from './bridge/bridge.js';
export type { ProxyNotice } from './http/context.js';
export { HTTP_PROXY_DEFAULTS, type HttpProxy, type HttpProxyOptions, startHttpProxy } from './http/server.js';
export type { StartedServer } from './start.js';
export {
  runStdioProxy,
  STDIO_PROXY_DEFAULTS,
  type StdioProxyOptions,
  type StdioProxyResult,
} from './stdio.js';
