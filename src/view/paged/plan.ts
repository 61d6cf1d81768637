import { open, stat } from 'node:fs/promises';
import { TapedeckError } from '../../base/errors.js';
import { formatBytes } from '../../base/units.js';
import { openTrace } from '../../trace/io.js';

/**
 * Whether `tapedeck view` pages a trace (the browser asks the server for what it shows, a page at a time) or
 * hands the browser the whole files. The browser holds a trace in about four times its size in memory, and
 * spends its time per message: a trace of many small messages loads as slowly as one of few big ones. Past
 * `fromBytes`, or past `fromMessages` lines (counted in the first megabyte of each file and scaled to its size), a
 * single trace is paged unless `--no-paged` says otherwise. Paging serves one trace in tapedeck's own JSONL (or
 * mcp-tape's), whose lines it reads back by position.
 */
export const PAGED_DEFAULTS = {
  /** A trace (all its segments) this big or bigger is paged by default. */
  fromBytes: 256 * 1024 * 1024,
  /**
   * A trace of this many lines or more is paged by default: read whole, 100k small messages take 3–7 s on two
   * cores, and a click made meanwhile waits up to a second or two for the reading to let go.
   */
  fromMessages: 80_000,
} as const;

/** Bytes read from the start of each file to tell how long its lines are. */
const SAMPLE_BYTES = 1024 * 1024;

/**
 * About how many lines a file holds: exact when it is smaller than the sample, else the lines of its first
 * megabyte scaled to its size.
 *
 * @example await estimateLines('/t/big.jsonl', 221e6) // → about 1e6
 */
export async function estimateLines(file: string, size: number): Promise<number> {
  if (size === 0) return 0;
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return 0;
  try {
    const buffer = Buffer.alloc(Math.min(size, SAMPLE_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    let lines = 0;
    for (let at = buffer.indexOf(10); at !== -1 && at < bytesRead; at = buffer.indexOf(10, at + 1)) lines++;
    if (bytesRead >= size) return lines + (buffer[bytesRead - 1] === 10 ? 0 : 1);
    return Math.round((Math.max(lines, 1) / bytesRead) * size);
  } finally {
    await handle.close();
  }
}

export interface PagingPlan {
  paged: boolean;
  /** Something to tell the user (a big set of traces read whole). */
  note: string | undefined;
}

/**
 * Decides from the traces named, their files, and `--paged` / `--no-paged` (undefined: decide by size and by
 * message count). A
 * `--paged` that cannot be honoured is a usage error saying why.
 *
 * @example await pagingPlan(['big.jsonl'], ['/t/big.jsonl'], undefined) // → { paged: true, note: undefined }
 */
export async function pagingPlan(
  paths: readonly string[],
  files: readonly string[],
  choice: boolean | undefined,
  fromBytes: number = PAGED_DEFAULTS.fromBytes,
  fromMessages: number = PAGED_DEFAULTS.fromMessages,
): Promise<PagingPlan> {
  if (choice === false) return { paged: false, note: undefined };
  let bytes = 0;
  let lines = 0;
  for (const file of files) {
    const size = (await stat(file).catch(() => ({ size: 0 }))).size;
    bytes += size;
    if (bytes < fromBytes && lines < fromMessages) lines += await estimateLines(file, size);
  }
  const big = bytes >= fromBytes || lines >= fromMessages;
  if (paths.length !== 1) {
    if (choice)
      throw new TapedeckError('usage', `--paged shows one trace at a time; got ${paths.length}: name one`);
    const note = big
      ? `${bytes >= fromBytes ? formatBytes(bytes) : `about ${lines.toLocaleString('en')} lines`} across ` +
        `${paths.length} traces: the browser reads them whole; ` +
        'name the biggest alone to have it paged'
      : undefined;
    return { paged: false, note };
  }
  if (!choice && !big) return { paged: false, note: undefined };
  const trace = await openTrace(paths[0]!);
  if (trace.format !== 'tapedeck' && trace.format !== 'mcp-tape') {
    if (choice)
      throw new TapedeckError(
        'usage',
        `--paged reads tapedeck or mcp-tape JSONL; ${paths[0]} is ${trace.format}: convert it first ` +
          `(tapedeck convert ${paths[0]} --to tapedeck)`,
      );
    return { paged: false, note: undefined };
  }
  return { paged: true, note: undefined };
}
