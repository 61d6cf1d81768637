import { resolve } from 'node:path';
import { defaultTraceDir } from '../../base/paths.js';
import type { TraceFileTarget } from '../../sink/file.js';
import { traceFileName } from '../../sink/naming.js';
import { usageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { exists, isDirectory, refuseLinkedOutput } from '../paths.js';

/** Where a recording goes, as `record` is told: `--file` or `--out`. */
export interface TracePathFlags {
  out?: string | undefined;
  file?: string | undefined;
}

/**
 * The trace file of a recording: `--file` as given (an existing file is overwritten, with a warning), or a new
 * name in `--out` (or the default folder) that no other recording holds. Relative paths start at `io.cwd`.
 *
 * @example resolveTracePath({ out: './traces' }, 'everything', io) // → { path: '/…/traces/2026…-everything.jsonl', existing: 'unique' }
 */
export function resolveTracePath(options: TracePathFlags, label: string, io: CliIo): TraceFileTarget {
  if (options.file !== undefined && options.out !== undefined) {
    throw usageError(
      '--file and --out cannot be used together; give a folder with --out or one file with --file',
    );
  }
  if (options.file !== undefined) {
    if (options.file === '-') {
      throw usageError(
        '--file - is not allowed: stdout carries the MCP protocol; give a file path or --out <dir>',
      );
    }
    if (isDirectory(resolve(io.cwd, options.file))) {
      throw usageError(
        `--file ${options.file} is a directory; give a file path, or use --out ${options.file}`,
      );
    }
    const path = resolve(io.cwd, options.file);
    refuseLinkedOutput('--file', options.file, path);
    return { path, existing: 'warn' };
  }
  const dir = options.out ?? defaultTraceDir(io.env);
  if (options.out !== undefined && exists(resolve(io.cwd, dir)) && !isDirectory(resolve(io.cwd, dir))) {
    throw usageError(`--out ${dir} is a file; give a folder, or use --file ${dir}`);
  }
  return { path: resolve(io.cwd, traceFileName(dir, label)), existing: 'unique' };
}
