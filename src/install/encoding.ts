import type { ConfigProblem } from './text.js';

/**
 * Config files as bytes: which encoding a file is in, its text, and the same bytes back. Editors on Windows often
 * save JSON with a UTF-8 byte order mark (Notepad did for years) or as UTF-16; a BOM is not a syntax error, and a
 * file must be written back in the encoding it was found in, so that install followed by uninstall gives back the
 * original byte for byte. Bytes that are not valid text are a problem to report, never something to rewrite.
 */

export type ConfigEncoding = 'utf8' | 'utf8-bom' | 'utf16le-bom' | 'utf16be-bom';

export type DecodedConfig = { text: string; encoding: ConfigEncoding } | { problem: ConfigProblem };

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/**
 * The text of a config file (without its byte order mark) and the encoding to write it back in.
 *
 * @example decodeConfig(Buffer.from('\ufeff{}', 'utf8')) // → { text: '{}', encoding: 'utf8-bom' }
 */
export function decodeConfig(bytes: Uint8Array): DecodedConfig {
  if (UTF8_BOM.every((b, i) => bytes[i] === b)) return utf8(bytes.subarray(3), 'utf8-bom', 3);
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return utf16(bytes.subarray(2), 'utf16le-bom');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return utf16(bytes.subarray(2), 'utf16be-bom');
  return utf8(bytes, 'utf8', 0);
}

/**
 * The bytes of `text` in `encoding`, byte order mark included.
 *
 * @example encodeConfig('{}', 'utf8-bom') // → <Buffer ef bb bf 7b 7d>
 */
export function encodeConfig(text: string, encoding: ConfigEncoding): Buffer {
  switch (encoding) {
    case 'utf8':
      return Buffer.from(text, 'utf8');
    case 'utf8-bom':
      return Buffer.concat([Buffer.from(UTF8_BOM), Buffer.from(text, 'utf8')]);
    case 'utf16le-bom':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    case 'utf16be-bom':
      return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
  }
}

function utf8(bytes: Uint8Array, encoding: 'utf8' | 'utf8-bom', skipped: number): DecodedConfig {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes), encoding };
  } catch {
    const at = firstInvalidUtf8(bytes);
    const before = Buffer.from(bytes.subarray(0, at)).toString('utf8');
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    return {
      problem: {
        line,
        column,
        message:
          `byte ${skipped + at} (0x${(bytes[at] ?? 0).toString(16).padStart(2, '0')}) is not UTF-8; ` +
          'save the file as UTF-8 (or UTF-16 with a byte order mark) and run tapedeck again',
      },
    };
  }
}

function utf16(bytes: Uint8Array, encoding: 'utf16le-bom' | 'utf16be-bom'): DecodedConfig {
  if (bytes.length % 2 !== 0)
    return {
      problem: { line: 1, column: 1, message: 'the file starts like UTF-16 but has an odd number of bytes' },
    };
  const le = Buffer.from(bytes);
  if (encoding === 'utf16be-bom') le.swap16();
  return { text: le.toString('utf16le'), encoding };
}

/** The offset of the first byte that does not belong to a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  const decodes = (end: number, stream: boolean) => {
    try {
      new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes.subarray(0, end), { stream });
      return true;
    } catch {
      return false;
    }
  };
  // The longest prefix that decodes while more may follow (monotonic, so a binary search finds it) ...
  let low = 0;
  let high = bytes.length;
  while (low < high) {
    const mid = Math.floor((low + high + 1) / 2);
    if (decodes(mid, true)) low = mid;
    else high = mid - 1;
  }
  // ... ends in the start of the sequence that went wrong, at most three bytes back.
  let at = low;
  while (at > 0 && low - at < 4 && !decodes(at, false)) at--;
  return at;
}
