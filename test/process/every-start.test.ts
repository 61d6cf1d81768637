/**
 * Every server start goes through the spawn helper: no source file but src/process/spawn.ts starts a process
 * with node:child_process, except `tapedeck view`'s browser opener, which starts no server. A new call site that
 * spawns directly fails here instead of quietly not working on Windows.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/peers.js';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Files allowed to start processes themselves, and why. */
const ALLOWED: Record<string, string> = {
  'src/process/spawn.ts': 'the helper itself',
  'src/cli/commands/view.ts': 'opens a browser, not a server (its Windows line is escaped by src/process)',
};

describe('starting processes', () => {
  it('happens in the spawn helper only', () => {
    const starters = sourceFiles(join(REPO_ROOT, 'src'))
      .map((file) => ({
        file: relative(REPO_ROOT, file).split('\\').join('/'),
        text: readFileSync(file, 'utf8'),
      }))
      // A value import of node:child_process (type-only imports start nothing).
      .filter(({ text }) => /^import\s+(?!type\b)[^;]*from\s+['"]node:child_process['"]/m.test(text))
      .map(({ file }) => file);
    expect(starters.sort()).toEqual(Object.keys(ALLOWED).sort());
  });
});
