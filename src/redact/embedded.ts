import type { Json } from '../trace/types.js';

/**
 * JSON inside a string — the most common MCP shape of all: a tool result's `text` holding a stringified object,
 * sometimes stringified twice. Such a string is parsed, redacted like a message (key rules included), and written
 * back only when something changed, in the layout it came in (compact or indented as it was).
 */

/** Strings longer than this are not parsed as JSON (their text is still scanned, `"name": "value"` pairs included). */
export const MAX_EMBEDDED_JSON = 1 << 20;

function firstNonBlank(text: string): number {
  let i = 0;
  while (i < text.length && text.charCodeAt(i) <= 32) i += 1;
  return i;
}

function lastNonBlank(text: string): number {
  let i = text.length - 1;
  while (i >= 0 && text.charCodeAt(i) <= 32) i -= 1;
  return i;
}

/**
 * The object or array a string holds as JSON, or undefined when it holds none (or is too long to look at). Only
 * strings that start with `{` or `[` and end with the matching bracket are parsed, so prose never pays for a failed
 * JSON.parse.
 *
 * @example parseEmbedded('{"apiKey":"abc"}') // { apiKey: 'abc' }
 */
export function parseEmbedded(text: string): Json | undefined {
  if (text.length < 2 || text.length > MAX_EMBEDDED_JSON) return undefined;
  const first = text.charCodeAt(firstNonBlank(text));
  const last = text.charCodeAt(lastNonBlank(text));
  if (!((first === 0x7b && last === 0x7d) || (first === 0x5b && last === 0x5d))) return undefined;
  try {
    const value = JSON.parse(text) as Json;
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The indentation the text was written with: `'  '` after the first line break, or '' for compact JSON. */
function indentOf(body: string): string {
  const nl = body.indexOf('\n');
  if (nl < 0) return '';
  let end = nl + 1;
  while (end < body.length && (body[end] === ' ' || body[end] === '\t')) end += 1;
  return body.slice(nl + 1, end);
}

/**
 * `redacted` written back as JSON text in `text`'s layout: its surrounding blanks kept, compact or indented as
 * `text` was (`JSON.stringify`'s own layouts, which is what servers send).
 *
 * @example writeEmbedded('{\n  "a": 1\n}', { a: '[REDACTED:x]' }) // '{\n  "a": "[REDACTED:x]"\n}'
 */
export function writeEmbedded(text: string, redacted: Json): string {
  const start = firstNonBlank(text);
  const end = lastNonBlank(text) + 1;
  const body = text.slice(start, end);
  const indent = indentOf(body);
  const json = indent === '' ? JSON.stringify(redacted) : JSON.stringify(redacted, null, indent);
  return text.slice(0, start) + json + text.slice(end);
}
