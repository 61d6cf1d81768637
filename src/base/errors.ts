/** Codes for failures that never cross the wire. Wire failures are JSON-RPC error responses, not this. */
export type TapedeckErrorCode =
  | 'usage'
  | 'input'
  | 'not_found'
  | 'is_directory'
  | 'corrupt_trace'
  | 'unknown_format'
  | 'io'
  /** An optional part (the collector's SQLite driver) is not installed or does not load. */
  | 'unavailable';

/**
 * A local failure with a message fit to show a person as one line: what happened, what was expected.
 * Only the CLI decides how it is printed and which exit code it becomes.
 */
export class TapedeckError extends Error {
  override readonly name = 'TapedeckError';
  constructor(
    readonly code: TapedeckErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
