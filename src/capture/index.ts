/**
 * `mcp-tapedeck/capture`: the capture points that turn traffic into trace lines — a stdio pipe's bytes (PipeCapture)
 * and the official SDK's Transport (recordTransport, also exported by `mcp-tapedeck/replay`, where its cassettes are
 * played). Framing and the capture queue behind them are internal.
 */

export type { PartialLinesOptions } from './partial-lines.js';
export { PipeCapture, type PipeCaptureOptions } from './pipe-capture.js';
export { type RecordingTransport, type RecordTransportOptions, recordTransport } from './record-transport.js';
export type {
  McpTransport,
  TransportCallback,
  TransportMessage,
  TransportSendOptions,
} from './sdk-transport.js';
