import type { MessageLine, TraceLine } from './types.js';

/**
 * Encodes one trace line as UTF-8 JSONL text (with its newline). JSON.stringify escapes U+2028/2029 and never
 * emits a raw newline, so one encoded line is always exactly one physical line.
 *
 * @example encodeLine({ t: '2026-01-01T00:00:00.000Z', seq: 1, dir: 'in', raw: { jsonrpc: '2.0', method: 'ping', id: 1 } })
 */
export function encodeLine(line: TraceLine): string {
  return `${JSON.stringify(line)}\n`;
}

/** Characters some line readers treat as line breaks; wire text holding them is re-encoded instead. */
const LINE_BREAKS = /[\r\u2028\u2029]/;

/**
 * Encodes a message line whose `raw` is known to be exactly `rawText` (the JSON text read from the wire), reusing
 * that text instead of serializing `raw` again — the costly part for large messages. Falls back to
 * {@link encodeLine} when the text holds characters that could split the line for some readers.
 *
 * @example encodeMessageLine({ t, seq: 1, dir: 'in', raw: { id: 1 } }, '{"id":1}')
 */
export function encodeMessageLine(line: MessageLine, rawText: string): string {
  if (LINE_BREAKS.test(rawText)) return encodeLine(line);
  const { raw: _raw, ...envelope } = line;
  const head = JSON.stringify(envelope);
  return `${head.slice(0, -1)},"raw":${rawText}}\n`;
}

let lastMs = Number.NaN;
let lastIso = '';

/** ISO-8601 UTC with milliseconds, the `t` of every record line. */
export function timestamp(ms: number = Date.now()): string {
  // Many lines share a millisecond on a busy session; formatting a Date is the costly part.
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
