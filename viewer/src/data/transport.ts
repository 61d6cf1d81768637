import type { Row } from './rows.js';
import type { SourceModel } from './source-model.js';

/**
 * HTTP envelope lines (requests, responses and their headers, as `http` trace lines) are facts about the transport,
 * not the MCP conversation; an HTTP recording has several for every MCP message. The viewer hides them unless asked
 * ("transport lines"), on HTTP traces by default, and shows them on others (where they are rare and telling).
 */

/**
 * A row about the transport rather than an MCP message.
 *
 * @example isTransportRow(httpRow) // → true
 */
export function isTransportRow(row: Row): boolean {
  return row.kind === 'http';
}

/**
 * Whether transport lines show when the link does not say: hidden when any open trace was recorded over HTTP.
 *
 * @example transportShownByDefault(model.sources) // → false for a Streamable HTTP recording
 */
export function transportShownByDefault(sources: readonly SourceModel[]): boolean {
  return !sources.some((s) => s.info.meta.transport === 'http' || s.info.meta.transport === 'sse');
}

/**
 * The `tl` link parameter read: `1` shows transport lines, `0` hides them, anything else leaves it to the traces.
 *
 * @example transportShown('0', model.sources) // → false
 */
export function transportShown(param: string | undefined, sources: readonly SourceModel[]): boolean {
  if (param === '1') return true;
  if (param === '0') return false;
  return transportShownByDefault(sources);
}
