import { stat } from 'node:fs/promises';
import { TapedeckError } from '../../base/errors.js';
import { formatBytes } from '../../base/units.js';
import { openTrace } from '../../trace/io.js';

/**
 * Whether `tapedeck view` pages a trace (the browser asks the server for what it shows, a page at a time) or
 * hands the browser the whole files. The browser holds a trace in about four times its size in memory, which is
 * fine for a few hundred megabytes and not for gigabytes: past `fromBytes` a single trace is paged unless
 * `--no-paged` says otherwise. Paging serves one trace in tapedeck's own JSONL (or mcp-tape's), whose lines it
 * reads back by position.
 */
export const PAGED_DEFAULTS = {
  /** A trace (all its segments) this big or bigger is paged by default. */
  fromBytes: 256 * 1024 * 1024,
} as const;

export interface PagingPlan {
  paged: boolean;
  /** Something to tell the user (a big set of traces read whole). */
  note: string | undefined;
}

/**
 * Decides from the traces named, their files, and `--paged` / `--no-paged` (undefined: decide by size). A
 * `--paged` that cannot be honoured is a usage error saying why.
 *
 * @example await pagingPlan(['big.jsonl'], ['/t/big.jsonl'], undefined) // → { paged: true, note: undefined }
 */
export async function pagingPlan(
  paths: readonly string[],
  files: readonly string[],
  choice: boolean | undefined,
  fromBytes: number = PAGED_DEFAULTS.fromBytes,
): Promise<PagingPlan> {
  if (choice === false) return { paged: false, note: undefined };
  let bytes = 0;
  for (const file of files) bytes += (await stat(file).catch(() => ({ size: 0 }))).size;
  const big = bytes >= fromBytes;
  if (paths.length !== 1) {
    if (choice)
      throw new TapedeckError('usage', `--paged shows one trace at a time; got ${paths.length}: name one`);
    const note = big
      ? `${formatBytes(bytes)} across ${paths.length} traces: the browser reads them whole; ` +
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
