import { basename, dirname, join } from 'node:path';

/** The names of a trace's files: its rotated segments, and the next free name when a generated one is taken. */

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
