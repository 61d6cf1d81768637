import type { TraceLine } from './types.js';

/**
 * Encodes one trace line as UTF-8 JSONL text (with its newline). JSON.stringify escapes U+2028/2029 and never
 * emits a raw newline, so one encoded line is always exactly one physical line.
 *
 * @example encodeLine({ t: '2026-01-01T00:00:00.000Z', seq: 1, dir: 'in', raw: { jsonrpc: '2.0', method: 'ping', id: 1 } })
 */
export function encodeLine(line: TraceLine): string {
  return `${JSON.stringify(line)}\n`;
}

/** ISO-8601 UTC with milliseconds, the `t` of every record line. */
export function timestamp(ms: number = Date.now()): string {
  return new Date(ms).toISOString();
}
