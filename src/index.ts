/**
 * `mcp-tapedeck`: the names most users call — record a session, open and pair a trace, replay a cassette (in tests
 * with `useCassette`), verify a server against one, instrument a production server, redact — and the error they
 * throw. Each comes from the entry point of its family (`mcp-tapedeck/trace`, `mcp-tapedeck/replay`,
 * `mcp-tapedeck/live` …), which exports the rest of that family; test/api/report.test.ts keeps this list short.
 */

export { TapedeckError, type TapedeckErrorCode } from './base/errors.js';
export { VERSION } from './base/version.js';
export {
  type McpTransport,
  type RecordingTransport,
  type RecordTransportOptions,
  recordTransport,
} from './capture/index.js';
export {
  createRecorder,
  type Destination,
  type HttpMiddlewareOptions,
  httpMiddleware,
  type InstrumentableServer,
  type InstrumentOptions,
  instrument,
  type Recorder,
} from './instrument/index.js';
export {
  type AppendOptions,
  appendToCassette,
  type ExchangeVerdict,
  serveUpdate,
  type UpdateOptions,
  type UpdateOutcome,
  type UpdateSession,
  type VerifyOptions,
  type VerifyReport,
  verifyCassette,
} from './live/index.js';
export {
  type Cassette,
  type CassetteMode,
  type CassetteSession,
  type HttpReplayOptions,
  type HttpReplayServer,
  type LlmSide,
  type LoadCassetteOptions,
  type LoadedCassette,
  loadCassette,
  type ReplayEvent,
  type ReplayOptions,
  type ReplayReport,
  type ReplayTransport,
  type ReplayTransportOptions,
  replayTransport,
  type ServeOutcome,
  type ServeStdioOptions,
  type StdioReplayServer,
  serveHttp,
  serveStdio,
  type UseCassetteOptions,
  useCassette,
} from './live/replay-entry.js';
export {
  type HttpBridgeOptions,
  type HttpBridgeResult,
  type HttpProxy,
  type HttpProxyOptions,
  runHttpBridge,
  runStdioProxy,
  type StdioProxyOptions,
  type StdioProxyResult,
  startHttpProxy,
} from './proxy/index.js';
export type { RedactEnvironment, RedactFlags } from './redact/config.js';
export {
  createRedactor,
  DEFAULT_RULES,
  type Finding,
  type FindOptions,
  type RedactConfig,
  type Redactor,
  type RedactorOptions,
  type RedactRule,
  toHar,
} from './redact/index.js';
export { loadRedaction, type Redaction, type RedactionOptions } from './redact/setup.js';
export { FileSink, type FileSinkOptions, MemorySink, type TraceSink } from './sink/index.js';
export {
  type AlignedItem,
  type AlignOptions,
  alignTraces,
  collectExchanges,
  computeStats,
  type EndLine,
  type Exchange,
  isMessageLine,
  type Json,
  type MessageLine,
  type MetaLine,
  type OpenedTrace,
  type OpenTraceOptions,
  type PairEvent,
  type PairingResult,
  pairTrace,
  pairTraceAsync,
  type RecordLine,
  type TraceAlignment,
  type TraceDiagnostic,
  type TraceEntry,
  type TraceFormat,
  type TraceLine,
  type TraceStats,
  toMcporter,
  toMcpTape,
  toTapedeck,
} from './trace/index.js';
export { type LoadedTrace, loadTrace, openTrace } from './trace/io-entry.js';
