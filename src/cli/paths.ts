import { statSync } from 'node:fs';

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
