export { drainWithin, Pump } from './pump.js';
export { recordStdioSession, type StdioSessionOptions } from './session.js';
export {
  runStdioProxy,
  STDIO_PROXY_DEFAULTS,
  type StdioProxyOptions,
  type StdioProxyResult,
} from './stdio.js';
export { finishStdout, openStdout, type ProxyStdout } from './streams.js';
