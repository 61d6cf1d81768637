/**
 * `mcp-tapedeck/sink`: where captured lines go. The TraceSink contract and BaseSink, which does sequence numbers,
 * counts, redaction and the end line so a sink of your own only stores text; the file, memory and collector sinks.
 * The collector's client and poster, naming and cassette files are internal.
 */

export { defaultTraceDir } from '../base/paths.js';
export type { Redactor } from '../redact/types.js';
export {
  CollectorSink,
  type CollectorSinkOptions,
  LiveFileSink,
  type LiveFileSinkOptions,
} from './collector.js';
export type { CollectorPosterOptions } from './collector-poster.js';
export {
  type ExistingFile,
  FILE_SINK_DEFAULTS,
  FileSink,
  type FileSinkOptions,
  type TraceFileTarget,
} from './file.js';
export { MemorySink } from './memory.js';
export {
  BaseSink,
  type BaseSinkOptions,
  type EndInfo,
  noRedaction,
  type TraceSink,
} from './sink.js';
