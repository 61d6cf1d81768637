import { open } from 'node:fs/promises';

/**
 * A search for a text too short for the trigram filter (one or two ASCII characters) reads the whole file, and in
 * a million-message trace nearly every line holds such a text. So it is looked for in the file's bytes as they
 * are, never decoded: each spelling of the text (`ab`, `aB`, `Ab`, `AB`) is found by the native byte search, and
 * a line matches when one of them lies after the line's first `"raw":`, as the line test has it. A case-insensitive
 * JavaScript search for ASCII text matches no character outside ASCII, so this finds exactly the lines it would.
 */

/** Texts this search answers: one or two ASCII characters. */
export function isShortAscii(text: string): boolean {
  if (text.length === 0 || text.length > 2) return false;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 128) return false;
  return true;
}

/** Every spelling of an ASCII text that a case-insensitive search finds, as bytes. */
export function spellings(text: string): Buffer[] {
  let out = [''];
  for (const ch of text) {
    const lower = ch.toLowerCase();
    const upper = ch.toUpperCase();
    out = out.flatMap((s) => (lower === upper ? [s + ch] : [s + lower, s + upper]));
  }
  return out.map((s) => Buffer.from(s, 'latin1'));
}

const RAW = Buffer.from('"raw":');
/** Bytes read at a time (whole lines of them searched). */
const CHUNK = 4 * 1024 * 1024;

/**
 * Marks `bits[lineNo]` for the lines among the first `size` bytes of `file` whose message part holds `text` (one
 * or two ASCII characters, any case). Lines are numbered from 1.
 *
 * @example const bits = new Uint8Array(lines + 2); await markShortText('trace.jsonl', size, 'ok', bits);
 */
export async function markShortText(
  file: string,
  size: number,
  text: string,
  bits: Uint8Array,
  chunk = CHUNK,
): Promise<void> {
  const variants = spellings(text);
  const handle = await open(file, 'r');
  try {
    let buffer = Buffer.allocUnsafe(chunk);
    let held = 0;
    let position = 0;
    let lineNo = 1;
    while (position < size) {
      if (held === buffer.length) {
        const bigger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(bigger, 0, 0, held);
        buffer = bigger;
      }
      const want = Math.min(buffer.length - held, size - position);
      const { bytesRead } = await handle.read(buffer, held, want, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      held += bytesRead;
      const last = buffer.lastIndexOf(10, held - 1);
      if (last === -1) continue;
      lineNo = markLines(buffer.subarray(0, last + 1), lineNo, variants, bits);
      buffer.copy(buffer, 0, last + 1, held);
      held -= last + 1;
    }
    if (held > 0) markLines(buffer.subarray(0, held), lineNo, variants, bits);
  } finally {
    await handle.close();
  }
}

/** Marks the matching lines of `chunk` (whole lines, the first numbered `lineNo`); returns the next line's number. */
function markLines(chunk: Buffer, lineNo: number, variants: readonly Buffer[], bits: Uint8Array): number {
  const end = chunk.length;
  // The next place of `"raw":` and of each spelling at or after where a line's search starts.
  let raw = chunk.indexOf(RAW);
  const hits = variants.map((v) => chunk.indexOf(v));
  let line = lineNo;
  let start = 0;
  while (start < end) {
    let stop = chunk.indexOf(10, start);
    if (stop === -1) stop = end;
    if (raw !== -1 && raw < start) raw = chunk.indexOf(RAW, start);
    const from = raw !== -1 && raw < stop ? raw + RAW.length : start;
    for (let k = 0; k < variants.length; k++) {
      let at = hits[k]!;
      if (at !== -1 && at < from) {
        at = chunk.indexOf(variants[k]!, from);
        hits[k] = at;
      }
      if (at !== -1 && at + variants[k]!.length <= stop) {
        bits[line] = 1;
        break;
      }
    }
    line++;
    start = stop + 1;
  }
  return line;
}
