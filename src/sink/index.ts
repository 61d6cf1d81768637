export { FILE_SINK_DEFAULTS, FileSink, type FileSinkOptions } from './file.js';
export { MemorySink } from './memory.js';
export { deriveLabel, safeLabel, traceFileName } from './naming.js';
export { defaultTraceDir, segmentPath } from './paths.js';
export {
  BaseSink,
  type BaseSinkOptions,
  type EndInfo,
  noRedaction,
  type Redactor,
  type TraceSink,
} from './sink.js';
