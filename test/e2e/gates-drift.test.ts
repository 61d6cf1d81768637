/**
 * `tapedeck drift` against real processes: a fixture server on the official SDK in two builds (lock file, recording
 * and live server as BASE and NEW), server-everything over Streamable HTTP with --upstream, and two published
 * releases of server-filesystem a year apart.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sarifProblems } from '../helpers/ci-formats.js';
import { startEverything } from '../helpers/http-proxy.js';
import {
  makeTempDir,
  NODE_MODULES,
  REPO_ROOT,
  removeTempDir,
  runProcess,
  TAPEDECK_BIN,
} from '../helpers/peers.js';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'servers', 'drift-server.mjs');
/** server-filesystem 2025.7.29 (a devDependency under an alias); TAPEDECK_OLD_FILESYSTEM points elsewhere. */
const OLD_FILESYSTEM =
  process.env.TAPEDECK_OLD_FILESYSTEM ??
  join(NODE_MODULES, '@modelcontextprotocol/server-filesystem-2025/dist/index.js');
const NEW_FILESYSTEM = join(NODE_MODULES, '@modelcontextprotocol/server-filesystem/dist/index.js');

let tmp: string;
const drift = (args: string[]) =>
  runProcess(process.execPath, [TAPEDECK_BIN, 'drift', ...args], { cwd: tmp });
const fixture = (variant: 'a' | 'b') => ['--', process.execPath, FIXTURE, '--variant', variant];

beforeAll(async () => {
  tmp = await makeTempDir('tapedeck-drift-');
});
afterAll(() => removeTempDir(tmp));

describe('tapedeck drift', () => {
  it('writes a lock file on first use, then finds no drift against the same build', async () => {
    const first = await drift(['tools.lock.json', '--write-lock', 'tools.lock.json', ...fixture('a')]);
    expect([first.code, first.stderr.trim()]).toEqual([0, 'tapedeck: wrote tools.lock.json']);
    const lock = JSON.parse(readFileSync(join(tmp, 'tools.lock.json'), 'utf8'));
    expect(lock.tools.map((t: { name: string }) => t.name)).toEqual(['delete_item', 'echo', 'search']);
    const again = await drift(['tools.lock.json', ...fixture('a')]);
    expect([again.code, again.stdout]).toEqual([0, 'no drift: the definitions are the same\n']);
  });

  it("classes variant b's changes against the lock: a required input, a flipped hint, new items, a reworded text", async () => {
    const run = await drift(['tools.lock.json', ...fixture('b')]);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.slice(0, -1).map((l) => l.split(/\s+/).slice(0, 3).join(' '))).toEqual([
      'breaking tools[search] $.inputSchema.properties.scope',
      'risky tools[delete_item] $.annotations.destructiveHint',
      'additive tools[summarize] $',
      'additive prompts[review] $.arguments.tone',
      'cosmetic tools[echo] $.description',
    ]);
    expect(lines.at(-1)).toBe(
      '5 changes: 1 breaking, 1 risky, 2 additive, 1 cosmetic; 1 at or above --fail-on breaking',
    );
    expect(run.stdout).toContain('destructiveHint went from false to true (less safe) (false → true)');
    expect(run.code).toBe(1);
    expect((await drift(['tools.lock.json', '--fail-on', 'any', ...fixture('a')])).code).toBe(0);
  });

  it('points SARIF results at the lock-file line of each changed item', async () => {
    await drift(['tools.lock.json', '--reporter', 'sarif:drift.sarif', ...fixture('b')]);
    const sarif = JSON.parse(readFileSync(join(tmp, 'drift.sarif'), 'utf8'));
    expect(sarifProblems(sarif)).toEqual([]);
    const lockLines = readFileSync(join(tmp, 'tools.lock.json'), 'utf8').split('\n');
    const results = sarif.runs[0].results as {
      ruleId: string;
      locations: { physicalLocation: { region?: { startLine: number } } }[];
    }[];
    const search = results.find((r) => r.ruleId === 'drift/breaking')!;
    const line = search.locations[0]!.physicalLocation.region!.startLine;
    expect(lockLines.slice(line - 1, line + 40).join('\n')).toMatch(/^ {4}\{[\s\S]*"name": "search"/);
  });

  it('compares a lock file with a server reached by --upstream', async () => {
    const server = await startEverything('streamableHttp');
    try {
      const url = `http://127.0.0.1:${server.port}/mcp`;
      const a = await drift(['every.lock.json', '--write-lock', 'every.lock.json', '--upstream', url]);
      expect(a.code).toBe(0);
      const b = await drift(['every.lock.json', '--upstream', url]);
      expect([b.code, b.stdout]).toEqual([0, 'no drift: the definitions are the same\n']);
    } finally {
      await server.stop();
    }
  });

  it.skipIf(!existsSync(OLD_FILESYSTEM))(
    'reports the real changes between server-filesystem 2025.7.29 and 2026.8.31 (skipped: 2025.7.29 not installed)',
    async () => {
      await runProcess('mkdir', ['-p', join(tmp, 'files')]);
      const old = ['--', process.execPath, OLD_FILESYSTEM, join(tmp, 'files')];
      const written = await drift(['fs.lock.json', '--write-lock', 'fs.lock.json', ...old]);
      expect([written.code, written.stderr]).toEqual([0, 'tapedeck: wrote fs.lock.json\n']);
      const newer = ['--', process.execPath, NEW_FILESYSTEM, join(tmp, 'files')];
      const run = await drift(['fs.lock.json', '--json', ...newer]);
      expect(run.code).toBe(1);
      const { changes } = JSON.parse(run.stdout) as {
        changes: { class: string; item: string; path: string }[];
      };
      const has = (cls: string, item: string, path: string) =>
        changes.some((c) => c.class === cls && c.item === item && c.path === path);
      // 2025.7.29 built on today's SDK (zod 4) lists input schemas with no properties: its schema converter
      // knows only zod 3. 2026.8.31 lists them in full, so every required input reads as new.
      expect(has('breaking', 'write_file', '$.inputSchema.properties.path')).toBe(true);
      expect(has('additive', 'read_text_file', '$.inputSchema.properties.head')).toBe(true);
      expect(has('additive', 'read_text_file', '$.outputSchema')).toBe(true);
      expect(has('cosmetic', 'read_text_file', '$.title')).toBe(true);
      expect(has('cosmetic', 'list_directory', '$.annotations.readOnlyHint')).toBe(true);
    },
  );
});
