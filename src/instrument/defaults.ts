/** Every default of production recording, in one place. */
export const INSTRUMENT_DEFAULTS = {
  maxValueLength: 100_000,
  maxBatchSize: 25,
  flushInterval: 5_000,
  uploadTimeout: 10_000,
  maxQueue: 10_000,
  sessionIdleTimeout: 30 * 60 * 1000,
  relatedMessages: 'count',
  /** Session trace files open at once (the files destination). */
  maxOpenFiles: 64,
  collectorAttempts: 4,
  collectorBackoffMs: 500,
  /** Cap on one retry delay (a Retry-After beyond it is not honoured). */
  collectorMaxBackoffMs: 30_000,
} as const;

/**
 * Headers hidden whatever the options say: credentials never reach an event. `redactHeaders` adds to these;
 * nothing removes them (they are applied apart from the redaction config, which may turn its defaults off). The
 * list is the recorders' own (src/redact/headers.ts), so both hide the same headers.
 */
export { CREDENTIAL_HEADER_RULES } from '../redact/headers.js';
