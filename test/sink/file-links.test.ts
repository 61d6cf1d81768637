/**
 * The trace file sink never writes through a symbolic link: not at a path it was given, not at a generated name,
 * and not at the active file it reopens after a rotation — where a link planted in the instant between the rename
 * and the reopen would otherwise receive the rest of the session.
 */
import fs, { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSink, type FileSinkOptions } from '../../src/sink/file.js';
import { makeTempDir, removeTempDir } from '../helpers/proxy.js';

/** Runs `after` right after the next rename the sink makes (the rotation's), once. */
const renameHook: { after?: ((from: string, to: string) => void) | undefined } = {};

const realRename = fs.renameSync;

/**
 * node:fs's renameSync with the hook after it, for every module (the sink imports it by name: syncing the built-in
 * module's exports updates that binding). Patched for this file's tests only, whichever modules are loaded already.
 */
function hookRenames(on: boolean): void {
  fs.renameSync = on
    ? (from, to) => {
        realRename(from, to);
        const after = renameHook.after;
        renameHook.after = undefined;
        after?.(String(from), String(to));
      }
    : realRename;
  syncBuiltinESMExports();
}

const RC = 'export PATH=/usr/bin:/bin\n';

function meta() {
  return {
    v: 1 as const,
    type: 'meta' as const,
    startedAt: '2026-01-02T03:04:05.678Z',
    label: 'links',
    traceId: '0d4b8e0f-9c11-4c1b-9a55-6f1c2a528d0e',
    segment: 0,
  };
}

const message = (i: number) => ({
  t: '2026-01-02T03:04:05.678Z',
  dir: 'in' as const,
  raw: { jsonrpc: '2.0', id: i, method: 'ping', params: { pad: 'x'.repeat(200) } },
});

let dir: string;
let outside: string;
beforeEach(async () => {
  hookRenames(true);
  dir = await makeTempDir('tapedeck-sink-links-');
  outside = join(dir, 'outside');
  mkdirSync(outside);
  mkdirSync(join(dir, 'traces'));
});
afterEach(async () => {
  hookRenames(false);
  renameHook.after = undefined;
  await removeTempDir(dir);
});

async function record(options: Partial<FileSinkOptions> & { path: string }, records: number) {
  const warnings: string[] = [];
  const sink = new FileSink({ flushMs: 0, warn: (m) => warnings.push(m), ...options });
  sink.start(meta());
  for (let i = 0; i < records; i += 1) {
    sink.append(message(i));
    if (i % 7 === 0) await new Promise((done) => setImmediate(done));
  }
  await sink.close({ reason: 'process_exit' });
  return { sink, warnings };
}

describe('the trace file sink and symbolic links', () => {
  it('does not follow a link planted at the active file between the rotation rename and the reopen', async () => {
    const rc = join(outside, 'bashrc');
    writeFileSync(rc, RC);
    const path = join(dir, 'traces', 'session.jsonl');
    renameHook.after = (_from, to) => {
      if (to.endsWith('session.1.jsonl')) symlinkSync(rc, path);
    };
    const { warnings } = await record({ path, maxBytes: 2000, maxFiles: 4 }, 40);
    expect(readFileSync(rc, 'utf8')).toBe(RC);
    expect(warnings.join('\n')).toContain('is a symbolic link');
  });

  it.each(['overwrite', 'warn'] as const)(
    "refuses a path that is a link with existing: '%s' (a cassette or --file), and warns",
    async (existing) => {
      const rc = join(outside, 'profile');
      writeFileSync(rc, RC);
      const path = join(dir, 'traces', 'cassette.jsonl');
      symlinkSync(rc, path);
      const { warnings } = await record({ path, existing }, 3);
      expect(readFileSync(rc, 'utf8')).toBe(RC);
      expect(lstatSync(path).isSymbolicLink()).toBe(true);
      expect(warnings).toEqual([
        expect.stringContaining(`cannot open trace file ${path} (${path} is a symbolic link`),
      ]);
    },
  );

  it('takes the next free generated name instead of writing through a link that holds one', async () => {
    const rc = join(outside, 'zshrc');
    writeFileSync(rc, RC);
    const path = join(dir, 'traces', '20260102T030405.678Z-links.jsonl');
    symlinkSync(rc, path);
    const dangling = join(dir, 'traces', '20260102T030405.678Z-links-2.jsonl');
    symlinkSync(join(outside, 'new-file'), dangling);
    const { sink, warnings } = await record({ path, existing: 'unique' }, 3);
    expect(sink.path).toBe(join(dir, 'traces', '20260102T030405.678Z-links-3.jsonl'));
    expect(readFileSync(rc, 'utf8')).toBe(RC);
    expect(fs.existsSync(join(outside, 'new-file'))).toBe(false);
    expect(warnings).toEqual([]);
  });
});
