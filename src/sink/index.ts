export type { Redactor } from '../redact/types.js';
export {
  CollectorSink,
  type CollectorSinkOptions,
  LiveFileSink,
  type LiveFileSinkOptions,
} from './collector.js';
export {
  type CollectorClientOptions,
  collectorBase,
  collectorRequest,
  createLiveTrace,
  type LiveTrace,
} from './collector-client.js';
export {
  COLLECTOR_POSTER_DEFAULTS,
  CollectorPoster,
  type CollectorPosterOptions,
  type PosterStats,
} from './collector-poster.js';
export { FILE_SINK_DEFAULTS, FileSink, type FileSinkOptions } from './file.js';
export { MemorySink } from './memory.js';
export { deriveLabel, safeLabel, traceFileName } from './naming.js';
export { defaultTraceDir, segmentPath } from './paths.js';
export {
  BaseSink,
  type BaseSinkOptions,
  type EndInfo,
  noRedaction,
  type TraceSink,
} from './sink.js';
