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

/** How far each source's rows were looked through, and whether a transport row was among them. */
const scanned = new WeakMap<SourceModel, { rows: number; found: boolean }>();

/**
 * Whether a trace holds transport lines: an HTTP recording, or any `http` row. Rows are looked at once each, so
 * asking again while a big trace loads costs only the rows added since.
 *
 * @example hasTransportLines(source) // → true for a Streamable HTTP recording
 */
export function hasTransportLines(source: SourceModel): boolean {
  if (source.info.meta.transport === 'http' || source.info.meta.transport === 'sse') return true;
  const seen = scanned.get(source) ?? { rows: 0, found: false };
  const rows = source.rows;
  for (let i = seen.rows; i < rows.length && !seen.found; i++) seen.found = isTransportRow(rows[i]!);
  seen.rows = rows.length;
  scanned.set(source, seen);
  return seen.found;
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
