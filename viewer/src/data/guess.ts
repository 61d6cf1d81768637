import { type Attribution, type Exchange, idTag } from 'mcp-tapedeck/trace';
import type { Row } from './rows.js';

/**
 * Which ties between a message and a request are guesses. Pairing ties a server message to a request by a fact on
 * the wire (a progress token, a subscription id, the id a cancellation names, the HTTP stream it came on) when there
 * is one; over stdio a log line or a `roots/list` often carries none, and pairing then names the request that was
 * open at the time (`open-request`). The viewer shows such a tie as a guess everywhere, never as a certainty.
 */

/**
 * Whether an attribution is a guess rather than a fact read off the wire.
 *
 * @example isGuess('open-request') // → true
 * @example isGuess('progressToken') // → false
 */
export function isGuess(via: Attribution | undefined): boolean {
  return via === 'open-request';
}

/**
 * The request a row was guessed to belong to, or undefined when the row's place is certain (or it has no parent).
 * A notification row carries its own tie; a server→client request and its answer share their exchange's.
 *
 * @example guessedParent(rootsListRow)?.method // → 'tools/call'
 */
export function guessedParent(row: Row): Exchange | undefined {
  if (row.kind === 'notification') return isGuess(row.via) ? row.parent : undefined;
  const exchange = row.exchange;
  if (exchange && isGuess(exchange.via)) return exchange.parent;
  return undefined;
}

/**
 * The words for a guessed tie, the same in every place that shows one.
 *
 * @example guessTitle(parent) // → 'maybe part of tools/call #2: the request open when it was sent (nothing on the wire ties it)'
 */
export function guessTitle(parent: Exchange): string {
  return `maybe part of ${parent.method} ${idTag(parent.id)}: the request open when it was sent (nothing on the wire ties it)`;
}
