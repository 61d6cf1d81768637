/**
 * `mcp-tapedeck/instrument`: production recording for MCP servers built on the official TypeScript SDK 1.x.
 * `instrument(server, options)` watches the transport the server connects and reports every request — timing,
 * outcome, user, session, HTTP facts — to a tapedeck collector, trace files, or OpenTelemetry; `createRecorder`
 * shares one recorder between servers; `httpMiddleware` gives it the HTTP request. The transport decorator, the
 * queue and the built-in destinations are internal (a destination of your own is an EventSink).
 */
export type { ConnectableServer, InstrumentableServer } from './attach.js';
export { INSTRUMENT_DEFAULTS } from './defaults.js';
export {
  type HonoContextLike,
  type HttpMiddleware,
  type HttpMiddlewareOptions,
  httpMiddleware,
  type NodeNext,
} from './http-context.js';
export { instrument } from './instrument.js';
export { createRecorder, type Recorder } from './recorder.js';
export type {
  CollectorDestination,
  CustomDestination,
  Destination,
  EventSink,
  FilesDestination,
  HttpFacts,
  IdentityKind,
  Implementation,
  InstrumentOptions,
  OtlpContent,
  OtlpDestination,
  RecorderStats,
  RelatedCapture,
  RelatedMessage,
  RelatedSummary,
  RequestContext,
  RequestEvent,
  RequestOutcome,
  TraceContextFields,
  UserInfo,
} from './types.js';
