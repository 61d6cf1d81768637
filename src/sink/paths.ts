import { chmodSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** Where traces go when no --out/--file is given: `$TAPEDECK_DIR` or `~/.tapedeck/traces`. */
export function defaultTraceDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.TAPEDECK_DIR;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(homedir(), '.tapedeck', 'traces');
}

/**
 * Creates the folder a file goes into with mode 0700. Folders that already exist are left as they are: tapedeck
 * must not change the mode of a folder it did not create (such as /tmp).
 */
export function ensurePrivateDir(filePath: string): void {
  const dir = dirname(filePath);
  const first = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (first !== undefined) {
    // mkdir's mode is filtered by the umask; the folders it created are ours to tighten.
    let current = dir;
    while (current.length >= first.length) {
      chmodSync(current, 0o700);
      const parent = dirname(current);
      if (parent === current) break;
      current = parent;
    }
  }
}

/**
 * The path of rotated segment `n` of a trace: 0 is the active file `name.jsonl`, older ones `name.1.jsonl` …
 *
 * @example segmentPath('/t/run.jsonl', 2) === '/t/run.2.jsonl'
 */
export function segmentPath(path: string, n: number): string {
  if (n === 0) return path;
  const name = basename(path);
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : '';
  return join(dirname(path), `${stem}.${n}${ext}`);
}

/**
 * The path of the `n`th name for a trace whose generated name was taken: `name-n.jsonl`. A dash, never a dot, so
 * that it cannot be mistaken for another trace's rotated segment (`name.1.jsonl`).
 *
 * @example suffixedPath('/t/run.jsonl', 2) === '/t/run-2.jsonl'
 */
export function suffixedPath(path: string, n: number): string {
  const name = basename(path);
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : '';
  return join(dirname(path), `${stem}-${n}${ext}`);
}
