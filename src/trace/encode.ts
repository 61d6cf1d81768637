import type { MessageLine, TraceLine } from './types.js';

/**
 * Encodes one trace line as UTF-8 JSONL text (with its newline). JSON.stringify never emits a raw newline or
 * carriage return; U+2028/2029 (which it leaves raw, and some line readers split on) are escaped too, so one
 * encoded line is exactly one physical line for every reader.
 *
 * @example encodeLine({ t: '2026-01-01T00:00:00.000Z', seq: 1, dir: 'in', raw: { jsonrpc: '2.0', method: 'ping', id: 1 } })
 */
export function encodeLine(line: TraceLine): string {
  return `${escapeSeparators(JSON.stringify(line))}\n`;
}

const SEPARATORS = /[\u2028\u2029]/;

/** In JSON text U+2028/2029 can only stand inside strings, where their `\u` escapes mean the same. */
function escapeSeparators(json: string): string {
  if (!SEPARATORS.test(json)) return json;
  return json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** A carriage return in wire JSON is whitespace between tokens; such text is re-encoded rather than copied. */
const CARRIAGE_RETURN = /\r/;

/**
 * Encodes a message line whose `raw` is known to be exactly `rawText` (the JSON text read from the wire), reusing
 * that text instead of serializing `raw` again — the costly part for large messages. Falls back to
 * {@link encodeLine} when the text holds a carriage return, which some line readers would split on.
 *
 * @example encodeMessageLine({ t, seq: 1, dir: 'in', raw: { id: 1 } }, '{"id":1}')
 */
export function encodeMessageLine(line: MessageLine, rawText: string): string {
  if (CARRIAGE_RETURN.test(rawText)) return encodeLine(line);
  return `${messageHead(line)}${escapeSeparators(rawText)}}\n`;
}

/**
 * The start of a message line, up to where its `raw` JSON text goes: `{"t":…,"seq":…,"dir":…,"raw":` (U+2028/2029
 * escaped). The head, the raw text (separators escaped) and `}` plus a newline make the line {@link encodeMessageLine}
 * makes.
 *
 * @example messageHead({ t, seq: 1, dir: 'in', raw: { id: 1 } }) // '{"t":"…","seq":1,"dir":"in","raw":'
 */
export function messageHead(line: MessageLine): string {
  const plain = plainHead(line);
  if (plain !== undefined) return plain;
  const { raw: _raw, ...envelope } = line;
  return `${escapeSeparators(JSON.stringify(envelope)).slice(0, -1)},"raw":`;
}

/** A `t` that JSON writes as it is (checked once per distinct value: many lines share a millisecond). */
const PLAIN_TIME = /^[0-9A-Za-z:.+-]*$/;
let plainTime = '';

/**
 * The head of the line a stdio capture makes — exactly `t`, `seq`, `dir`, `raw` in that order, `t` free of anything
 * JSON escapes — written out directly; undefined for any other shape (which JSON.stringify then writes).
 */
function plainHead(line: MessageLine): string | undefined {
  const { t, seq, dir } = line;
  if (typeof t !== 'string' || typeof seq !== 'number' || !Number.isSafeInteger(seq)) return undefined;
  if (dir !== 'in' && dir !== 'out') return undefined;
  let at = 0;
  for (const key in line) {
    if (key !== HEAD_KEYS[at]) return undefined;
    at += 1;
  }
  if (at !== HEAD_KEYS.length) return undefined;
  if (t !== plainTime) {
    if (!PLAIN_TIME.test(t)) return undefined;
    plainTime = t;
  }
  return `{"t":"${t}","seq":${seq},"dir":"${dir}","raw":`;
}

const HEAD_KEYS = ['t', 'seq', 'dir', 'raw'];

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
