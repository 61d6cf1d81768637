import { decodeValue, isRecord } from '../decode.js';
import { isHar } from './har.js';
import { isHttpExchanges } from './http-exchanges.js';
import { isMcporterRecord } from './mcporter.js';
import { isShackDocument } from './shack.js';

/**
 * Format detection from content. Line formats (tapedeck / mcp-tape JSONL, mcporter NDJSON) are told apart by their
 * first recognizable line; JSON document formats (shack, HTTP exchanges) need the whole file parsed first.
 */

/** What the first lines of a file say: a line format, "a JSON document, parse it whole", or nothing known. */
export type HeadVerdict =
  | { kind: 'lines'; format: 'tapedeck' | 'mcp-tape' | 'mcporter'; hasMeta: boolean }
  | { kind: 'document' }
  | { kind: 'unknown' };

/** How many leading non-blank lines detection looks at, so one corrupt first line does not hide a trace. */
export const HEAD_LINES = 8;

/**
 * Decides from the first non-blank lines of a file.
 *
 * @example
 * detectHead(['{"v":1,"type":"meta","startedAt":"…","label":"x"}']) // → { kind: 'lines', format: 'mcp-tape', hasMeta: true }
 * detectHead(['{', '  "name": "my_session",'])                        // → { kind: 'document' }
 */
export function detectHead(head: readonly string[]): HeadVerdict {
  const first = head[0]?.trim();
  if (first === undefined) return { kind: 'unknown' };
  // A JSONL trace line is always an object; a leading '[' can only be a JSON document.
  if (first.startsWith('[')) return { kind: 'document' };
  for (const [index, text] of head.entries()) {
    const value = parse(text);
    if (!isRecord(value)) continue;
    const format = detectLineFormat(value);
    if (format !== undefined) return { kind: 'lines', ...format, hasMeta: format.hasMeta && index === 0 };
    if (index === 0 && detectDocumentFormat(value) !== undefined) return { kind: 'document' };
  }
  return first.startsWith('{') ? { kind: 'document' } : { kind: 'unknown' };
}

/** Recognizes one parsed line of a line format. */
export function detectLineFormat(
  value: Record<string, unknown>,
): { format: 'tapedeck' | 'mcp-tape' | 'mcporter'; hasMeta: boolean } | undefined {
  if (value.type === 'meta') {
    const producer = value.producer;
    const ours = isRecord(producer) && producer.name === 'tapedeck';
    return { format: ours ? 'tapedeck' : 'mcp-tape', hasMeta: true };
  }
  if (isMcporterRecord(value)) return { format: 'mcporter', hasMeta: false };
  // A trace without its meta line (cut off at the top, or a hand-made excerpt) is still a trace.
  if (decodeValue(value).kind === 'line') {
    return { format: value.seq === undefined ? 'mcp-tape' : 'tapedeck', hasMeta: false };
  }
  return undefined;
}

/** Recognizes a whole parsed JSON document. */
export function detectDocumentFormat(doc: unknown): 'shack' | 'http-exchanges' | 'har' | undefined {
  if (isHttpExchanges(doc)) return 'http-exchanges';
  if (isHar(doc)) return 'har';
  if (isShackDocument(doc)) return 'shack';
  return undefined;
}

/** The one-line list of what openTrace reads, for "unknown format" errors. */
export const EXPECTED_FORMATS =
  'tapedeck/mcp-tape JSONL (meta line first), mcporter NDJSON (JSON-RPC lines with _meta {dir, server, ts}), ' +
  'a shack-session-replay trajectory JSON ({name, events: [{request, response}]}), an HTTP exchanges JSON array ' +
  'or a HAR file';

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
