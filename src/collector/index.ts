/**
 * The collector: a local HTTP service that stores traces in SQLite, serves them to the web viewer (pages, JSONL,
 * a live websocket) and takes uploads and live recordings. See routes.ts for the API.
 */

// The duration grammar every flag and API field shares (defined with the other units).
export { parseDuration } from '../units.js';
export { ApiError, type ApiErrorCode } from './api-error.js';
export { type LineColumns, LineIndexer } from './columns.js';
export type { CollectorContext } from './context.js';
export { openDatabase } from './database.js';
export { checkHostOrigin, LIVE_PROTOCOL, TOKEN_PROTOCOL_PREFIX } from './guard.js';
export { defaultDbPath, loadOrCreateToken, readToken, shownPath, tokenPath } from './home.js';
export {
  COLLECTOR_DEFAULTS,
  type CollectorOptions,
  isLoopback,
  type LiveOptions,
  type RateLimit,
  type Retention,
} from './options.js';
export {
  type LineFilter,
  pageLines,
  searchTraces,
  type TraceQuery,
  type TraceSummary,
  traceSummary,
} from './queries.js';
export { applyRetention, type RetentionResult } from './retention.js';
export { createApp } from './routes.js';
export { type Collector, startCollector } from './server.js';
export type { ShareInfo } from './shares.js';
export { TRACE_ID, type TraceRow, type TraceState, TraceStore } from './store.js';
