import { BYTE_STYLES, formatBytes } from '../base/units.js';
/**
 * Failures the API answers with: an HTTP status, a stable string code and one line fit to show a person. Every
 * error response has the body `{"error":{"code","message", …details}}`.
 */

export type ApiErrorCode =
  | 'bad_request'
  | 'bad_id'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'gone'
  | 'conflict'
  | 'payload_too_large'
  | 'malformed_line'
  | 'unsupported_format'
  | 'rate_limited'
  | 'upgrade_required'
  | 'unavailable'
  | 'internal';

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 410 | 413 | 426 | 429 | 500 | 503,
    readonly code: ApiErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  /** The JSON body of the response. */
  body(): { error: Record<string, unknown> } {
    return { error: { code: this.code, message: this.message, ...this.details } };
  }
}

/** 413 naming the limit. */
export function tooLarge(limit: number): ApiError {
  return new ApiError(
    413,
    'payload_too_large',
    `request body is over the limit of ${formatBytes(limit, BYTE_STYLES.prose)} (${limit} bytes); start the collector with a larger --max-body`,
    { limit },
    { connection: 'close' },
  );
}

/** Error codes of a database connection that was refused, lost or is shutting down (Postgres classes 08 and 57P). */
const LOST = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|08\w{3}|57P0[123])$/;

/**
 * 503 for a database that went away (its server restarts, the network drops): nothing was acknowledged, so the
 * client retries; undefined for any other error.
 */
export function databaseGone(err: unknown): ApiError | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : '';
  if (
    !(typeof code === 'string' && LOST.test(code)) &&
    !/Connection terminated|connect(ion)? timeout/i.test(message)
  )
    return undefined;
  return new ApiError(
    503,
    'unavailable',
    'the collector cannot reach its database right now; retry shortly',
    {},
    {
      'retry-after': '2',
    },
  );
}
