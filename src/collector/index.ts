/**
 * `mcp-tapedeck/collector`: a local HTTP service that stores traces in SQLite, serves them to the web viewer (pages,
 * JSONL, a live websocket) and takes uploads and live recordings. See routes.ts for the API. It needs the optional
 * `better-sqlite3`, loaded when the collector starts. Its routes, queries, schema and guards are internal.
 */

export { defaultDbPath, tokenPath } from '../base/paths.js';
export type { ApiErrorCode } from './api-error.js';
export { loadOrCreateToken, readToken } from './home.js';
export {
  COLLECTOR_DEFAULTS,
  type CollectorOptions,
  type LiveOptions,
  type RateLimit,
  type Retention,
  type UploadLimits,
} from './options.js';
export type { RetentionResult } from './retention.js';
export { type Collector, startCollector } from './server.js';
