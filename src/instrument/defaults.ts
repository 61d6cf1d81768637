import type { HeaderRule } from '../redact/types.js';

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
 * nothing removes them (they are applied apart from the redaction config, which may turn its defaults off).
 */
export const CREDENTIAL_HEADER_RULES: readonly HeaderRule[] = [
  { id: 'authorization-header', type: 'header', name: 'authorization' },
  { id: 'proxy-authorization-header', type: 'header', name: 'proxy-authorization' },
  { id: 'cookie-header', type: 'header', name: 'cookie' },
  { id: 'set-cookie-header', type: 'header', name: 'set-cookie' },
  { id: 'api-key-header', type: 'header', name: 'x-api-key' },
  { id: 'api-key-header', type: 'header', name: 'api-key', contains: true },
  { id: 'token-header', type: 'header', name: 'token', contains: true },
  { id: 'secret-header', type: 'header', name: 'secret', contains: true },
  { id: 'password-header', type: 'header', name: 'password', contains: true },
  { id: 'auth-header', type: 'header', name: 'x-auth', contains: true },
];
