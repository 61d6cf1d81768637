import { statSync } from 'node:fs';
import { isSymlink } from '../base/no-follow.js';
import { usageError } from './errors.js';

/** What a path names, for flag checks that must not throw: `missing` when it cannot be stat'ed. */
export function pathKind(path: string): 'file' | 'directory' | 'other' | 'missing' {
  try {
    const stat = statSync(path);
    return stat.isFile() ? 'file' : stat.isDirectory() ? 'directory' : 'other';
  } catch {
    return 'missing';
  }
}

export const exists = (path: string): boolean => pathKind(path) !== 'missing';
export const isFile = (path: string): boolean => pathKind(path) === 'file';
export const isDirectory = (path: string): boolean => pathKind(path) === 'directory';

/**
 * Refuses, as a usage error naming the flag, a file to write whose place holds a symbolic link: tapedeck neither
 * writes through a link nor replaces it (see src/base/no-follow.ts), so the command stops before it does anything.
 *
 * @example refuseLinkedOutput('--file', 'trace.jsonl', '/work/trace.jsonl');
 */
export function refuseLinkedOutput(flag: string, given: string, path: string): void {
  if (!isSymlink(path)) return;
  throw usageError(
    `${flag} ${given} is a symbolic link: tapedeck neither writes through a link nor replaces it; name the file it points to, or another path`,
  );
}
