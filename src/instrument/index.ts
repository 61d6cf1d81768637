/**
 * Production recording for MCP servers built on the official TypeScript SDK 1.x: `instrument(server, options)`
 * watches the transport the server connects and reports every request — timing, outcome, user, session, HTTP
 * facts — to a tapedeck collector, trace files, or OpenTelemetry.
 */
export type { ConnectableServer, InstrumentableServer } from './attach.js';
export { CREDENTIAL_HEADER_RULES, INSTRUMENT_DEFAULTS } from './defaults.js';
export { targetOf } from './event.js';
export {
  type HonoContextLike,
  type HttpMiddleware,
  type HttpMiddlewareOptions,
  httpMiddleware,
} from './http-context.js';
export { instrument } from './instrument.js';
export { createRecorder, type Recorder } from './recorder.js';
export {
  COLLECTOR_ROUTES,
  CollectorSink,
  errorType,
  FilesSink,
  linesOf,
  MCP_ATTRIBUTES,
  metaOf,
  OtlpSink,
  sessionLabel,
  spanAttributes,
  spanName,
} from './sinks/index.js';
export { parseTraceparent, traceContextOf } from './trace-context.js';
export { InstrumentedTransport } from './transport.js';
export type * from './types.js';
export { truncateJson } from './values.js';
