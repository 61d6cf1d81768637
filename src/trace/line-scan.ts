import type { Json, MessageLine } from './types.js';

/**
 * Reading a message line straight from its bytes, for readers that need only part of every message: statistics
 * over a million-message trace read the envelope and the few message fields pairing looks at, never the tool
 * arguments or the result content, which are most of the bytes. Those are only checked (valid JSON, written as
 * JSON.stringify writes it) and measured.
 *
 * The scanner takes a line only when it is sure that JSON.parse and the trace decoder would read it the same way,
 * and that the message's bytes in the file are those of `JSON.stringify(raw)`: one JSON object, no whitespace
 * between tokens, strings with only the escapes JSON.stringify writes, numbers as JSON.stringify writes them, no
 * duplicate key, no `type` (a message line), valid UTF-8, shallow. Anything else it declines (undefined), and the
 * caller reads that line the ordinary way: the scanner is a shortcut, never a second reader with its own opinions.
 */

/** A message line read by {@link scanMessageLine}. */
export interface ScannedLine {
  /**
   * The line, its message reduced to what pairing and statistics read: every key of the message itself, and of
   * its `params` and `result` objects only {@link KEPT_KEYS}. Not a message to show, replay or write.
   */
  line: MessageLine;
  /** The UTF-8 length of `JSON.stringify(raw)` for the whole message (the bytes it takes in the file). */
  rawBytes: number;
  /** From {@link scanSpan}: where the line's bytes end (at its `\n`, its `\r\n`, or the end given). */
  end?: number;
}

/**
 * The keys of `params` and `result` a reduced message keeps: the tool name, progress tokens, the `_meta` of the
 * 2026 era, a cancellation's request id, `isError`, `resultType`, and the server's identity from `initialize`.
 */
export const KEPT_KEYS: ReadonlySet<string> = new Set([
  '_meta',
  'name',
  'requestId',
  'progressToken',
  'isError',
  'resultType',
  'serverInfo',
  'protocolVersion',
]);

/** Nesting the scanner follows; deeper lines are declined (the ordinary reader has its own, higher limit). */
const MAX_DEPTH = 200;
/** Keys per object checked for duplicates pairwise; an object with more is declined. */
const MAX_KEYS = 64;

const QUOTE = 34;
const BACKSLASH = 92;

/** Declines the current line: thrown inside the scanner, caught at its top. */
const DECLINE = Symbol('decline');

const utf8 = new TextDecoder('utf-8', { fatal: true });

let b: Uint8Array = new Uint8Array(0);
let i = 0;
let n = 0;
/** Whether the line held a byte outside ASCII (it is then checked as UTF-8 as a whole). */
let wide = false;
/** Whether the last string scanned held an escape. */
let escaped = false;
/** Key spans of the objects being scanned, for the duplicate check: [start, end] pairs per open object. */
const keys = new Int32Array(2 * MAX_KEYS * (MAX_DEPTH + 2));
let top = 0;

function fail(): never {
  throw DECLINE;
}

/** Steps over the `close` byte of an empty object or array at `i`, when it is there. */
function closes(close: number): boolean {
  if (b[i] !== close) return false;
  i++;
  return true;
}

/**
 * Reads one message line from its bytes (no newline), or undefined to have it read the ordinary way.
 *
 * @example scanMessageLine(new TextEncoder().encode('{"t":"…","dir":"in","raw":{"jsonrpc":"2.0","id":1,"method":"ping"}}'))
 * // → { line: { t: '…', dir: 'in', raw: { jsonrpc: '2.0', id: 1, method: 'ping' } }, rawBytes: 40, end: 69 }
 */
export function scanMessageLine(bytes: Uint8Array): ScannedLine | undefined {
  const found = scanSpan(bytes, 0, bytes.length);
  return found?.end === bytes.length ? found : undefined;
}

/** Makes a line's object from its first key at `at` (`"t":"`, 24 characters, `"`: stepped over), or undefined. */
export type Stamp = (bytes: Uint8Array, at: number) => Record<string, unknown> | undefined;

/**
 * {@link scanMessageLine} of the line that starts at `start` in bytes [start, end), which may hold more lines after
 * it: the line ends at its newline (`\n` or `\r\n`, left out) or at `end`, and its `end` is set to where. No byte
 * of a line the scanner takes is a newline, so it finds where the line ends as it reads it.
 *
 * @example scanSpan(chunk, 0, chunk.length)?.end // → the index of the first line's newline
 */
export function scanSpan(
  bytes: Uint8Array,
  start: number,
  end: number,
  stamp?: Stamp,
): ScannedLine | undefined {
  b = bytes;
  n = end;
  i = start;
  wide = false;
  top = 0;
  try {
    const result = envelope(stamp);
    if (i !== n && b[i] !== 10 && (b[i] !== 13 || (i + 1 !== n && b[i + 1] !== 10))) fail();
    result.end = i;
    if (wide) utf8.decode(bytes.subarray(start, i));
    return result;
  } catch (err) {
    // A TypeError is the UTF-8 decoder refusing the bytes: the ordinary reader reports them.
    if (err === DECLINE || err instanceof TypeError) return undefined;
    throw err;
  } finally {
    b = EMPTY;
  }
}

const EMPTY = new Uint8Array(0);

/** The line's object: its fields decoded, `raw` reduced and measured; perhaps made by `stamp`. */
function envelope(stamp: Stamp | undefined): ScannedLine {
  const start = i;
  if (n - start < 2 || b[start] !== 123) fail();
  i = start + 1;
  const made = stamp === undefined || i + 31 > n ? undefined : stamp(b, i);
  if (made !== undefined) {
    i += 30;
    if (b[i++] !== 44) fail();
  }
  const line = made ?? {};
  let rawBytes = -1;
  const mark = top;
  if (b[i] === 125) fail();
  for (;;) {
    const k0 = i;
    key();
    const k1 = i - 1;
    if (b[i++] !== 58) fail();
    const name = known(k0 + 1, k1) ?? text(k0 + 1, k1);
    if (name === 'raw') {
      const from = i;
      line.raw = message(1);
      rawBytes = i - from;
    } else if (name === 'type' || name === '__proto__') fail();
    // A stamped line's own two: its time is not written over, and a second `t` is left to the ordinary reader.
    else if (made !== undefined && (name === 't' || name === 'time')) fail();
    else line[name] = value(1);
    const c = b[i++];
    if (c === 44) continue;
    if (c === 125) break;
    fail();
  }
  top = mark;
  if (rawBytes < 0) fail();
  if ((made === undefined && typeof line.t !== 'string') || (line.dir !== 'in' && line.dir !== 'out')) fail();
  if (line.seq !== undefined && !Number.isInteger(line.seq)) fail();
  return { line: line as MessageLine, rawBytes };
}

/** A message: an object reduced (see KEPT_KEYS), a batch of them, or any other value as it is. */
function message(depth: number): Json {
  const c = b[i];
  if (c === 91) {
    i++;
    const items: Json[] = [];
    if (closes(93)) return items;
    for (;;) {
      items.push(b[i] === 123 ? reduced(depth + 1, 1) : value(depth + 1));
      const next = b[i++];
      if (next === 44) continue;
      if (next === 93) return items;
      fail();
    }
  }
  return c === 123 ? reduced(depth, 1) : value(depth);
}

/**
 * An object, at `level` 1 (a message: every key kept, `params` and `result` reduced) or 2 (`params`/`result`:
 * only KEPT_KEYS kept, the rest checked and skipped).
 */
function reduced(depth: number, level: 1 | 2): Json {
  if (depth > MAX_DEPTH) fail();
  i++;
  const out: Record<string, Json> = {};
  const mark = top;
  if (closes(125)) return out;
  for (;;) {
    const k0 = i;
    key();
    noDuplicate(mark, k0, i - 1);
    if (b[i++] !== 58) fail();
    if (level === 1) {
      const name = known(k0 + 1, i - 2) ?? text(k0 + 1, i - 2);
      if (name === '__proto__') fail();
      out[name] =
        (name === 'params' || name === 'result') && b[i] === 123 ? reduced(depth + 1, 2) : value(depth + 1);
    } else {
      // A key kept, or `__proto__`, is always a known name: any other is skipped without its text made.
      const name = known(k0 + 1, i - 2);
      if (name === '__proto__') fail();
      if (name !== undefined && KEPT_KEYS.has(name)) out[name] = value(depth + 1);
      else skip(depth + 1);
    }
    const c = b[i++];
    if (c === 44) continue;
    if (c === 125) break;
    fail();
  }
  top = mark;
  return out;
}

/** A key string at `i` (its quotes included in [start, i)); its span is noted for the duplicate check. */
function key(): void {
  if (b[i] !== QUOTE) fail();
  const start = i + 1;
  string();
  if (top >= keys.length - 2) fail();
  keys[top++] = start;
  keys[top++] = i - 1;
}

/** Fails when the key just read (bytes [k0 + 1, k1 - 1]) repeats one of the keys noted since `mark`. */
function noDuplicate(mark: number, k0: number, k1: number): void {
  const start = k0 + 1;
  const length = k1 - start;
  const last = top - 2;
  if (last - mark >= 2 * MAX_KEYS - 2) fail();
  for (let at = mark; at < last; at += 2) {
    const s = keys[at]!;
    if (keys[at + 1]! - s === length && sameBytes(s, start, length)) fail();
  }
}

// Names every line holds, by length and first byte. The kept keys and `__proto__` come first and share a slot with
// no other name: a key that is not its slot's name is none of them.
const KNOWN: (string | undefined)[] = new Array(64 * 128);
const NAMES = [
  'seq',
  'dir',
  'raw',
  'jsonrpc',
  'id',
  'method',
  'params',
  'result',
  'error',
  'in',
  'out',
  '2.0',
];
for (const name of [...KEPT_KEYS, '__proto__', ...NAMES])
  KNOWN[(name.length << 7) | name.charCodeAt(0)] ??= name;

/** The known name that bytes [start, end) of the string just scanned spell, or undefined. */
function known(start: number, end: number): string | undefined {
  const length = end - start;
  const first = b[start]!;
  if (length >= 64 || length === 0 || first >= 128 || escaped) return undefined;
  const name = KNOWN[(length << 7) | first];
  return name !== undefined && spells(name, start) ? name : undefined;
}

/** Whether bytes from `start` spell `name` (ASCII). */
function spells(name: string, start: number): boolean {
  for (let j = 0; j < name.length; j++) if (name.charCodeAt(j) !== b[start + j]) return false;
  return true;
}

/** Short strings seen lately by a hash of their bytes: keys, directions, methods and names repeat line after line. */
const CACHE_SIZE = 4096;
const cache: (string | undefined)[] = new Array(CACHE_SIZE);
/** Char codes of a short string being built (no subarray per string). */
const scratch: number[] = [];

function sameBytes(x: number, y: number, length: number): boolean {
  for (let j = 0; j < length; j++) if (b[x + j] !== b[y + j]) return false;
  return true;
}

/** The text of bytes [start, end) of the string just scanned (its quotes at start - 1 and end). */
function text(start: number, end: number): string {
  if (escaped) return JSON.parse(utf8.decode(b.subarray(start - 1, end + 1))) as string;
  const length = end - start;
  // Longer strings (ids, times) rarely repeat: made directly, without pushing the short ones out of the cache.
  if (length > 20) return utf8.decode(b.subarray(start, end));
  let hash = length;
  for (let j = start; j < end; j++) {
    const c = b[j]!;
    if (c >= 128) return utf8.decode(b.subarray(start, end));
    hash = Math.imul(hash ^ c, 0x01000193);
  }
  const slot = (hash >>> 0) & (CACHE_SIZE - 1);
  const cached = cache[slot];
  if (cached !== undefined && cached.length === length && spells(cached, start)) return cached;
  scratch.length = length;
  for (let j = 0; j < length; j++) scratch[j] = b[start + j]!;
  const made = String.fromCharCode.apply(null, scratch);
  cache[slot] = made;
  return made;
}

/** Any value, decoded. */
function value(depth: number): Json {
  const c = b[i];
  if (c === QUOTE) {
    const start = i + 1;
    string();
    return known(start, i - 1) ?? text(start, i - 1);
  }
  if (c === 45 || (c !== undefined && c >= 48 && c <= 57)) return number();
  const start = i;
  skip(depth);
  if (c === 116) return true;
  if (c === 102) return false;
  if (c === 110) return null;
  // An object or array kept whole: checked by the scan above, parsed from its own bytes.
  return JSON.parse(utf8.decode(b.subarray(start, i))) as Json;
}

/** Checks the value at `i` (written as JSON.stringify would) and steps over it. */
function skip(depth: number): void {
  const c = b[i];
  if (c === QUOTE) string();
  else if (c === 123) object(depth);
  else if (c === 91) array(depth);
  else if (c === 116) word(TRUE);
  else if (c === 102) word(FALSE);
  else if (c === 110) word(NULL);
  else number();
}

const TRUE = [116, 114, 117, 101];
const FALSE = [102, 97, 108, 115, 101];
const NULL = [110, 117, 108, 108];

function word(letters: number[]): void {
  for (const letter of letters) if (b[i++] !== letter) fail();
}

function object(depth: number): void {
  if (depth > MAX_DEPTH) fail();
  i++;
  if (closes(125)) return;
  const mark = top;
  for (;;) {
    const k0 = i;
    key();
    noDuplicate(mark, k0, i - 1);
    if (b[i++] !== 58) fail();
    skip(depth + 1);
    const c = b[i++];
    if (c === 44) continue;
    if (c === 125) break;
    fail();
  }
  top = mark;
}

function array(depth: number): void {
  if (depth > MAX_DEPTH) fail();
  i++;
  if (closes(93)) return;
  for (;;) {
    skip(depth + 1);
    const c = b[i++];
    if (c === 44) continue;
    if (c === 93) return;
    fail();
  }
}

/**
 * Steps over a string at `i` (its opening quote) to just past its closing one. Escapes are those JSON.stringify
 * writes: `\"`, `\\`, `\b \f \n \r \t`, and `\u00xx` (lower-case hex) for the other control characters.
 */
function string(): void {
  escaped = false;
  let j = i + 1;
  for (;;) {
    if (j >= n) fail();
    const c = b[j]!;
    if (c === QUOTE) break;
    if (c < 32) fail();
    if (c >= 128) wide = true;
    else if (c === BACKSLASH) {
      escaped = true;
      const e = b[j + 1];
      if (e === 117) {
        if (b[j + 2] !== 48 || b[j + 3] !== 48) fail();
        const hi = b[j + 4];
        const lo = b[j + 5]!;
        const low = lo >= 48 && lo <= 57 ? lo - 48 : lo >= 97 && lo <= 102 ? lo - 87 : -1;
        if ((hi !== 48 && hi !== 49) || low < 0) fail();
        const code = (hi - 48) * 16 + low;
        // JSON.stringify writes these five by their short escapes.
        if (code === 8 || code === 9 || code === 10 || code === 12 || code === 13) fail();
        j += 6;
        continue;
      }
      if (e !== QUOTE && e !== BACKSLASH && e !== 98 && e !== 102 && e !== 110 && e !== 114 && e !== 116)
        fail();
      j += 2;
      continue;
    }
    j++;
  }
  i = j + 1;
}

/** A number at `i`, written as JSON.stringify writes it (else the line is declined). */
function number(): number {
  const start = i;
  let j = i;
  if (b[j] === 45) j++;
  const first = b[j];
  if (first === undefined || first < 48 || first > 57) fail();
  let plain = true;
  let digits = 0;
  let whole = 0;
  while (j < n) {
    const c = b[j]!;
    if (c >= 48 && c <= 57) {
      digits++;
      whole = whole * 10 + (c - 48);
    } else if (c === 46 || c === 101 || c === 69 || c === 43 || c === 45) plain = false;
    else break;
    j++;
  }
  i = j;
  const negative = b[start] === 45;
  // A plain integer of up to 15 digits without a leading zero is written back as it is; anything else must
  // survive the round trip through a number to be JSON.stringify's own writing.
  if (plain && digits <= 15 && (first !== 48 || digits === 1) && !(negative && whole === 0))
    return negative ? -whole : whole;
  const token = String.fromCharCode.apply(null, b.subarray(start, j) as unknown as number[]);
  const parsed = Number(token);
  if (!Number.isFinite(parsed) || String(parsed) !== token) fail();
  return parsed;
}
