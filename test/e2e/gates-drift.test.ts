/**
 * `tapedeck drift` against real processes: a fixture server on the official SDK in two builds (lock file, recording
 * and live server as BASE and NEW), server-everything over Streamable HTTP with --upstream, and two published
 * releases of server-filesystem a year apart.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sarifProblems } from '../helpers/ci-formats.js';
import { startEverything } from '../helpers/http-proxy.js';
import {
  connectClient,
  everythingServer,
  makeTempDir,
  REPO_ROOT,
  recorded,
  removeTempDir,
  runProcess,
  settle,
  TAPEDECK_BIN,
} from '../helpers/peers.js';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'servers', 'drift-server.mjs');
/** The entry point a server package's `bin` names, resolved the way node resolves the package. */
function serverEntry(pkg: string): string {
  const manifest = createRequire(join(REPO_ROOT, 'package.json')).resolve(`${pkg}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: string | Record<string, string> };
  return join(dirname(manifest), typeof bin === 'string' ? bin : Object.values(bin)[0]!);
}
/** server-filesystem 2025.7.29, a devDependency under the alias `…-2025`, beside the current release. */
const OLD_FILESYSTEM = serverEntry('@modelcontextprotocol/server-filesystem-2025');
const NEW_FILESYSTEM = serverEntry('@modelcontextprotocol/server-filesystem');

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

  it('writes the lock file through the same redaction as its output', async () => {
    const run = await drift([
      'hidden.lock.json',
      '--write-lock',
      'hidden.lock.json',
      '--redact',
      'catalogue',
      ...fixture('a'),
    ]);
    expect(run.code).toBe(0);
    const text = readFileSync(join(tmp, 'hidden.lock.json'), 'utf8');
    expect(text).not.toContain('catalogue');
    expect(JSON.parse(text).tools.find((t: { name: string }) => t.name === 'search').description).toMatch(
      /^Searches the \[REDACTED/,
    );
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

  it('reads both releases as installed: 2025.7.29 under its alias, 2026.8.31 under its name', () => {
    const version = (entry: string) =>
      (JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string })
        .version;
    expect([version(OLD_FILESYSTEM), version(NEW_FILESYSTEM)]).toEqual(['2025.7.29', '2026.8.31']);
  });

  it('compares two recordings of real releases: each recorded by `tapedeck record`, then drift old.jsonl new.jsonl', async () => {
    const files = join(tmp, 'rec-files');
    await runProcess('mkdir', ['-p', files]);
    for (const [name, entry] of [
      ['old', OLD_FILESYSTEM],
      ['new', NEW_FILESYSTEM],
    ] as const) {
      const server = { command: process.execPath, args: [entry, files] };
      const { client } = await connectClient(recorded(server, { file: join(tmp, `${name}.jsonl`) }), {});
      // The SDK client refuses 2025.7.29's answer (its input schemas lack "type": "object", see below); the trace
      // keeps the answer all the same, and drift reads the trace.
      await settle(() => client.listTools());
      await client.close();
    }
    const run = await drift(['old.jsonl', 'new.jsonl', '--json']);
    expect(run.code).toBe(1);
    const { changes } = JSON.parse(run.stdout) as {
      changes: { class: string; item: string; path: string }[];
    };
    const has = (cls: string, item: string, path: string) =>
      changes.some((c) => c.class === cls && c.item === item && c.path === path);
    expect(has('additive', 'read_text_file', '$.outputSchema')).toBe(true);
    expect(has('cosmetic', 'read_text_file', '$.title')).toBe(true);
    // The same comparison as against the live servers below, so recording and live listing agree.
    const live = await drift(['old.jsonl', '--json', '--', process.execPath, NEW_FILESYSTEM, files]);
    expect(JSON.parse(live.stdout).changes).toEqual(changes);
    const text = await drift(['old.jsonl', 'new.jsonl']);
    expect(text.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^\d+ changes: \d+ breaking, \d+ risky, \d+ additive, \d+ cosmetic; \d+ at or above --fail-on breaking$/,
    );
  });

  it('lists a live server as the recorded client asked it: tools offered only to other clients are not drift', async () => {
    const server = everythingServer();
    // Declares no capability: server-everything then leaves out its sampling, roots and elicitation tools.
    const { client } = await connectClient(recorded(server, { file: join(tmp, 'plain.jsonl') }), {});
    const recordedTools = (await client.listTools()).tools.map((t) => t.name);
    await client.close();
    const run = await drift(['plain.jsonl', '--json', '--', server.command, ...server.args]);
    expect([run.code, JSON.parse(run.stdout).changes]).toEqual([0, []]);
    // A lock file carries no client: the live listing declares every capability and sees the gated tools.
    await drift(['plain.lock.json', '--write-lock', 'plain.lock.json', '--', server.command, ...server.args]);
    const locked = Object.keys(JSON.parse(readFileSync(join(tmp, 'plain.lock.json'), 'utf8')).tools ?? {});
    expect(locked.length).toBeGreaterThan(recordedTools.length);
  });

  it('reports the real changes between server-filesystem 2025.7.29 and 2026.8.31', async () => {
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
  });
});
