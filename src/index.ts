export { TapedeckError, type TapedeckErrorCode } from './errors.js';
export * from './trace/index.js';
export { PRODUCER, VERSION } from './version.js';
