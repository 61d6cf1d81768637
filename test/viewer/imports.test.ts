import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/peers.js';

/** How the viewer's source reaches the rest of tapedeck and how its own folders depend on each other. */

const VIEWER_SRC = join(REPO_ROOT, 'viewer', 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/g)].map(
    (m) => m[1]!,
  );
}

const sources = files(VIEWER_SRC);
const name = (file: string) => relative(VIEWER_SRC, file).split('\\').join('/');

describe('the viewer source', () => {
  it('has modules to check', () => {
    expect(sources.length).toBeGreaterThan(20);
  });

  it('reaches tapedeck only through its public entries, mcp-tapedeck/trace, mcp-tapedeck/redact and mcp-tapedeck/llm/run, never by a path into src/', () => {
    const outside = sources.flatMap((file) =>
      specifiers(file)
        .filter(
          (spec) => spec.startsWith('.') && relative(VIEWER_SRC, join(file, '..', spec)).startsWith('..'),
        )
        .map((spec) => `${name(file)} imports ${spec}`),
    );
    expect(outside).toEqual([]);
    const packages = new Set(
      sources.flatMap((file) => specifiers(file).filter((spec) => !spec.startsWith('.'))),
    );
    expect([...packages].sort()).toEqual([
      'mcp-tapedeck/llm/run',
      'mcp-tapedeck/redact',
      'mcp-tapedeck/trace',
      'preact',
      'preact/hooks',
    ]);
  });

  it('keeps data/ and source/ free of the UI: ui → source → data, never back', () => {
    const upward = sources
      .filter((file) => /^(data|source)\//.test(name(file)))
      .flatMap((file) =>
        specifiers(file)
          .filter(
            (spec) => /(^|\/)ui\//.test(spec) || (name(file).startsWith('data/') && /source\//.test(spec)),
          )
          .map((spec) => `${name(file)} imports ${spec}`),
      );
    expect(upward).toEqual([]);
  });
});
