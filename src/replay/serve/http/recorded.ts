import { findHttpAnswer } from '../../cassette/http-answers.js';
import type { Cassette } from '../../cassette/types.js';
import type { HttpServeEvent } from './events.js';
import type { HttpRequestLike, HttpResponseLike } from './http-types.js';

/**
 * Requests that are not MCP, answered as the recording says: the recorded status (and content type) for a method
 * and path the recording saw, and 404 for any other `/.well-known/` document — a server that publishes no OAuth
 * metadata says so, and a client that probes for it goes on without authorization. Only the envelope of such an
 * answer is recorded, so its body is empty.
 */

/** The prefix of documents a client probes for before it speaks MCP (RFC 8615). */
const WELL_KNOWN = '/.well-known/';

/**
 * Answers `req` when it is a non-MCP request the recording covers (or a `/.well-known/` probe); false otherwise,
 * and the MCP handlers take it.
 *
 * @example if (answerRecorded(cassette, req, res, emit)) return; // else handleStreamable(door, req, res)
 */
export function answerRecorded(
  cassette: Cassette,
  req: HttpRequestLike,
  res: HttpResponseLike,
  emit: (event: HttpServeEvent) => void,
): boolean {
  const url = req.url ?? '/';
  const method = req.method ?? 'GET';
  const recorded = findHttpAnswer(cassette.httpAnswers, method, url);
  const path = url.split('?', 1)[0] ?? url;
  if (recorded === undefined && !path.startsWith(WELL_KNOWN)) return false;
  const status = recorded?.status ?? 404;
  req.resume();
  res.writeHead(status, recorded?.headers ?? {});
  res.end();
  emit({ kind: 'http-answer', method, path, status, recorded: recorded !== undefined });
  return true;
}
