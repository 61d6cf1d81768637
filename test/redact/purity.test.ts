import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]/g;

/** Every source file the entry point reaches through relative imports, and every module name they import. */
function reach(entry: string): { files: string[]; modules: string[] } {
  const files = new Set<string>();
  const modules = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (spec === undefined) continue;
      if (spec.startsWith('.')) visit(join(dirname(file), spec.replace(/\.js$/, '.ts')));
      else modules.add(spec);
    }
  };
  visit(entry);
  return { files: [...files].map((file) => relative(root, file)).sort(), modules: [...modules].sort() };
}

describe('the redaction engine', () => {
  it('is pure: nothing src/redact/index.ts reaches imports a node: or any other module', () => {
    const { files, modules } = reach(join(root, 'src', 'redact', 'index.ts'));
    expect(files).toContain('src/redact/engine.ts');
    expect(files).toContain('src/redact/detect.ts');
    expect(modules).toEqual([]);
    // Outside src/redact: the pure trace format (lines, canonical JSON, the HAR document redact/har.ts fills) and two
    // constants;
    // nothing reaches I/O code such as the file sink.
    expect(files.filter((file) => !file.startsWith('src/redact/'))).toEqual([
      'src/base/errors.ts',
      'src/base/version.ts',
      'src/trace/canonical-json.ts',
      'src/trace/decode.ts',
      'src/trace/export/har.ts',
      'src/trace/export/query.ts',
      'src/trace/import/opened.ts',
      'src/trace/line-scan.ts',
      'src/trace/lines.ts',
      'src/trace/reader.ts',
      'src/trace/segments.ts',
      'src/trace/types.ts',
    ]);
  });
});
