import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../src/version.js';

const root = join(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const NODE_IMPORT = /from ['"]node:|require\(['"]node:|from ['"](fs|path|os|crypto|stream)['"]/;

describe('the project', () => {
  it('keeps src/trace pure so the web viewer can import it: only io.ts touches node: modules', () => {
    const files = sourceFiles(join(root, 'src', 'trace'));
    expect(files.length).toBeGreaterThan(3);
    const offenders = files
      .filter((file) => !file.endsWith(join('trace', 'io.ts')))
      .filter((file) => NODE_IMPORT.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(offenders).toEqual([]);
  });

  it('writes the package version into traces', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });

  it('never lets imports flow up from trace/ into capture, sink, proxy or cli', () => {
    const upward = sourceFiles(join(root, 'src', 'trace')).filter((file) =>
      /from ['"]\.\.\/(\.\.\/)?(capture|sink|proxy|cli)\//.test(readFileSync(file, 'utf8')),
    );
    expect(upward).toEqual([]);
  });

  it('keeps every source file a readable size (split past ~400 lines)', () => {
    const long = sourceFiles(join(root, 'src'))
      .map((file) => ({ file: relative(root, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 450);
    expect(long).toEqual([]);
  });

  it('resolves every subpath export of the built package by its public name', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    const names = Object.keys(pkg.exports)
      .filter((key) => key !== './package.json')
      .map((key) => (key === '.' ? 'tapedeck' : `tapedeck/${key.slice(2)}`));
    expect(names).toContain('tapedeck/trace');
    const script = `for (const name of ${JSON.stringify(names)}) { const m = await import(name); if (Object.keys(m).length === 0) throw new Error(name + ' exports nothing'); }`;
    // Node resolves a package's own name through its exports map (self-reference), exactly as a user's import would.
    expect(() =>
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root }),
    ).not.toThrow();
  });
});
