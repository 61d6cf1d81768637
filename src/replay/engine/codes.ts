/**
 * JSON-RPC error codes replay answers with, in the range JSON-RPC 2.0 leaves to implementations (-32000 … -32099),
 * clear of the codes MCP itself uses there (-32002 resource not found, -32042 URL elicitation required).
 * Their `error.data.tapedeck` carries the details (kind, closest recorded request, diff).
 */
export const REPLAY_ERROR_CODES = {
  /** No recorded exchange matches the request (or none is left, or it came out of order). */
  miss: -32090,
  /** The client did not answer a replayed server→client request (sampling, elicitation, roots) in time. */
  answerTimeout: -32091,
  /** The matched exchange has no recorded response: the recording ended, or its line was unreadable, first. */
  noResponse: -32092,
  /** JSON-RPC's own: the message was not a valid request. */
  invalidRequest: -32600,
} as const;
