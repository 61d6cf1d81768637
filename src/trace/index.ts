/**
 * `mcp-tapedeck/trace`: the trace format, pure — it runs in a browser, and the web viewer imports it by this name.
 * Line kinds and their JSONL encoding; opening a trace of any importable format through a TraceFiles (node's is in
 * `mcp-tapedeck/trace/io`); what a message is and what it is about; pairing requests with answers; statistics;
 * two traces lined up; other tools' formats written out; the shapes `tapedeck view` sends for a paged trace. The
 * readers, importers and segment planning behind `openTraceWith` are internal.
 */
// The error the trace functions throw (unknown format, a file not found, a line too long), so a user of this
// entry alone (a browser, which cannot load the main entry) can tell failures apart by their code.
export { TapedeckError, type TapedeckErrorCode } from '../base/errors.js';
export {
  BYTE_STYLES,
  type ByteStyle,
  type ByteUnit,
  formatBytes,
  formatLatency,
  formatOffset,
} from '../base/units.js';
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
export {
  type AuthFailureKind,
  type AuthStep,
  authStepOf,
  FAILURE_WORDS,
  firstFailure,
  isAuthEvent,
} from './auth-flow.js';
export { type Decoded, decodeLine, decodeValue } from './decode.js';
// Messages in a phrase and the units of sizes and times, as the viewer shows them.
export { clip, compact, idTag, requestLabel } from './describe.js';
export { argumentSummary, base64Bytes, requestSummary, resultSummary } from './describe-summary.js';
export { encodeLine, timestamp } from './encode.js';
// Two long values cut around their first difference, as `tapedeck diff` and the viewer's diff show them.
export { type DiffExcerpt, diffExcerpt, type ExcerptOptions, firstDifference } from './excerpt.js';
export { callFailed, certainDepth, failingCall } from './exchange.js';
export { toMcpTape } from './export/mcp-tape.js';
export { type McporterExportOptions, toMcporter } from './export/mcporter.js';
export { toTapedeck } from './export/tapedeck.js';
export type { IgnorePath, JsonLocation } from './ignore-paths.js';
export { memoryTraceFiles, type TraceFiles } from './import/files.js';
export { openTraceWith } from './import/open.js';
export {
  type OpenedTrace,
  type OpenTraceOptions,
  TRACE_FORMATS,
  type TraceEntry,
  type TraceFormat,
} from './import/opened.js';
export type { DiffEntry, DiffOptions, StructuralDiff } from './json-diff.js';
export {
  classifyMessage,
  formatId,
  isErrorResult,
  type JsonObject,
  messageItems,
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
  toolName,
} from './jsonrpc.js';
export { KEPT_KEYS, type ScannedLine, scanMessageLine } from './line-scan.js';
export { DEFAULT_NORMALIZATION, type NormalizationRules, type NormalizedRequest } from './normalize.js';
// What `tapedeck view` sends the viewer for a trace it serves a page at a time.
export type {
  PagedBar,
  PagedBarsPage,
  PagedChild,
  PagedDensity,
  PagedErrors,
  PagedExchange,
  PagedFound,
  PagedInfo,
  PagedMark,
  PagedProgress,
  PagedRow,
  PagedRowKind,
  PagedRowsPage,
  PagedSample,
  PagedStats,
  PagedToolTime,
} from './paged.js';
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
// One query over a trace's lines: the viewer's filters, the paged server's and the collector's line pages.
export {
  isEmptyQuery,
  kindMatches,
  LINE_KINDS,
  type LineKind,
  type LineQuery,
  nameMatches,
  queryFromParams,
  queryKey,
  queryParams,
  type TextMatch,
  textMatch,
} from './query.js';
export type { DiagnosticCode, ReadMode, TraceDiagnostic } from './reader.js';
export { splitPath, type TraceSegment } from './segments.js';
export {
  type CallStats,
  computeStats,
  type DirectionStats,
  type LatencyStats,
  type MethodStats,
  type NotificationStats,
  openedTraceStats,
  percentile,
  type ServerStats,
  StatsCollector,
  type ToolStats,
  type TraceStats,
  type UnansweredStats,
} from './stats.js';
export {
  type Direction,
  type EndCounts,
  type EndLine,
  type EndReason,
  type EventLine,
  type EventName,
  type HttpLine,
  isMessageLine,
  type Json,
  type MessageLine,
  type MetaLine,
  type Producer,
  type RecordBody,
  type RecordLine,
  type StderrLine,
  type TextLine,
  TRACE_VERSION,
  type TraceLine,
  type TransportKind,
} from './types.js';
