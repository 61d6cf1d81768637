export {
  HTTP_BRIDGE_DEFAULTS,
  type HttpBridgeOptions,
  type HttpBridgeResult,
  recordHttpSession,
  runHttpBridge,
} from './bridge/index.js';
export {
  HTTP_PROXY_DEFAULTS,
  HTTP_RECORDER_DEFAULTS,
  type HttpExchangeHooks,
  HttpExchangeRecorder,
  type HttpProxy,
  type HttpProxyOptions,
  HttpRecorder,
  type HttpRecorderOptions,
  type HttpRequestFacts,
  shownUrl,
  startHttpProxy,
  traceHeaders,
  upstreamLabel,
} from './http/index.js';
export { drainWithin, Pump } from './pump.js';
export { recordStdioSession, type StdioSessionOptions } from './session.js';
export { type StartedServer, type StartServerOptions, startServer } from './start.js';
export {
  runStdioProxy,
  STDIO_PROXY_DEFAULTS,
  type StdioProxyOptions,
  type StdioProxyResult,
} from './stdio.js';
export { finishStdout, openStdout, type ProxyStdout } from './streams.js';
