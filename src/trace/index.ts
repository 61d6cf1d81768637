// The error the trace functions throw (unknown format, a file not found, a line too long), so a user of this
// entry alone (a browser, which cannot load the main entry) can tell failures apart by their code.
export { TapedeckError, type TapedeckErrorCode } from '../errors.js';
export { BYTE_STYLES, type ByteStyle, formatBytes, formatLatency, formatOffset } from '../units.js';
export {
  ALIGN_DEFAULTS,
  type AlignedItem,
  type AlignKind,
  type AlignOptions,
  type AlignSummary,
  alignExchanges,
  alignTraces,
  type TraceAlignment,
  type ValueChange,
  type ValueDiff,
} from './align.js';
export { type Decoded, decodeLine, decodeValue } from './decode.js';
// Messages in a phrase and the units of sizes and times, as the viewer shows them.
export { clip, compact, idTag, requestLabel } from './describe.js';
export { argumentSummary, base64Bytes, requestSummary, resultSummary } from './describe-summary.js';
export { encodeLine, timestamp } from './encode.js';
export { toMcpTape } from './export/mcp-tape.js';
export { type McporterExportOptions, toMcporter } from './export/mcporter.js';
export { toTapedeck } from './export/tapedeck.js';
export type { IgnorePath, JsonLocation } from './ignore-paths.js';
export { detectDocumentFormat, detectHead, detectLineFormat, type HeadVerdict } from './import/detect.js';
export { memoryTraceFiles, type TraceFiles } from './import/files.js';
export { httpExchangesToTrace, isHttpExchanges } from './import/http-exchanges.js';
export {
  isMcporterRecord,
  type McporterScan,
  mcporterEntries,
  mcporterMeta,
  scanMcporter,
} from './import/mcporter.js';
export { nativeEntries, openNative } from './import/native.js';
export { openTraceWith } from './import/open.js';
export {
  type OpenedTrace,
  type OpenTraceOptions,
  TRACE_FORMATS,
  type TraceEntry,
  type TraceFormat,
} from './import/opened.js';
export { isShackDocument, shackToTrace } from './import/shack.js';
export {
  cancelledRequestId,
  classifyMessage,
  formatId,
  idKey,
  isErrorResult,
  messageItems,
  progressToken,
  promptName,
  type RpcBatch,
  type RpcErrorObject,
  type RpcId,
  type RpcInvalid,
  type RpcItem,
  type RpcMessage,
  type RpcNotification,
  type RpcRequest,
  type RpcResponse,
  requestTarget,
  resourceUri,
  responseOutcome,
  rpcError,
  subscriptionId,
  toolName,
} from './jsonrpc.js';
export { type NewMetaFields, newMeta } from './meta.js';
export {
  type Attribution,
  collectExchanges,
  type Exchange,
  type ExchangeChild,
  type ExchangeOutcome,
  type MessageRef,
  type PairEvent,
  Pairer,
  type PairerOptions,
  type PairingResult,
  pairTrace,
  pairTraceAsync,
} from './pairing.js';
export {
  type DiagnosticCode,
  DiagnosticLog,
  type JsonLine,
  type RawLine,
  type ReadLine,
  type ReadMode,
  readFirstLine,
  readJsonLines,
  readTraceLines,
  splitLines,
  type TraceDiagnostic,
} from './reader.js';
export {
  parseSegmentName,
  planSegments,
  segmentFileName,
  siblingCandidates,
  splitPath,
  type TraceSegment,
} from './segments.js';
export {
  type CallStats,
  computeStats,
  type DirectionStats,
  type LatencyStats,
  type MethodStats,
  type NotificationStats,
  percentile,
  type ServerStats,
  StatsCollector,
  type ToolStats,
  type TraceStats,
  type UnansweredStats,
  utf8Length,
} from './stats.js';
export * from './types.js';
