export * from './capture/index.js';
export { TapedeckError, type TapedeckErrorCode } from './errors.js';
export * from './proxy/index.js';
export {
  createRedactor,
  DEFAULT_RULES,
  findSecrets,
  type RedactConfig,
  type RedactRule,
  summarize as summarizeRedaction,
  toHar,
} from './redact/index.js';
export { loadRedaction, type Redaction, type RedactionOptions } from './redact/setup.js';
export * from './replay/index.js';
export * from './sink/index.js';
export * from './trace/index.js';
export {
  batch,
  type LoadedTrace,
  loadTrace,
  nodeTraceFiles,
  openTrace,
  writePrivateFile,
} from './trace/io.js';
export { PRODUCER, VERSION } from './version.js';
