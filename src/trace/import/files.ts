import { TapedeckError } from '../../base/errors.js';
import { splitPath } from '../segments.js';

/**
 * The file access openTrace needs, as an interface so the format code stays pure: src/trace/io.ts implements it
 * over node:fs, the web viewer over dropped File objects, tests over memory.
 */
export interface TraceFiles {
  /** Fails with TapedeckError `not_found`, `is_directory` or `io` when `path` is not a readable file. */
  check(path: string): Promise<void>;
  /** The file's bytes in chunks. Breaking out of the loop must release the file. */
  read(path: string): AsyncIterable<Uint8Array>;
  /** Paths of the other files in `path`'s folder (for rotation stitching); [] when the folder cannot be listed. */
  siblings(path: string): Promise<string[]>;
}

/**
 * TraceFiles over in-memory contents, keyed by path. Handy for tests and for a viewer that already holds the bytes.
 *
 * @example
 * const files = memoryTraceFiles({ 'a.jsonl': '{"v":1,"type":"meta",…}\n' });
 * const trace = await openTraceWith(files, 'a.jsonl');
 */
export function memoryTraceFiles(
  contents: Record<string, string | Uint8Array>,
  chunkSize = 64 * 1024,
): TraceFiles {
  const bytes = (path: string): Uint8Array => {
    const value = contents[path];
    if (value === undefined) throw new TapedeckError('not_found', `no such trace file: ${path}`);
    return typeof value === 'string' ? new TextEncoder().encode(value) : value;
  };
  return {
    async check(path) {
      bytes(path);
    },
    async *read(path) {
      const all = bytes(path);
      for (let at = 0; at < all.length; at += chunkSize) yield all.subarray(at, at + chunkSize);
    },
    async siblings(path) {
      const dir = splitPath(path).dir;
      return Object.keys(contents).filter((other) => other !== path && splitPath(other).dir === dir);
    },
  };
}

/** Reads a whole file as text, for JSON document formats that cannot be streamed line by line. */
export async function readWholeText(files: TraceFiles, path: string, maxBytes: number): Promise<string> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of files.read(path)) {
    size += chunk.length;
    if (size > maxBytes) {
      throw new TapedeckError(
        'input',
        `${path} is over ${Math.round(maxBytes / 1024 / 1024)} MiB; JSON document traces (shack, HTTP exchanges) are read whole`,
      );
    }
    parts.push(chunk);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return new TextDecoder('utf-8').decode(all);
}
