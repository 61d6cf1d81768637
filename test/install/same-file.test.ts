/**
 * `tapedeck install` run from the home folder: the project's `.cursor/mcp.json` and the user's are one file, and it
 * is listed, planned and written once — also when `$HOME` reaches the folder through a link while the working
 * folder is reported resolved (a macOS temp folder under `/var`, a home under a linked `/home`).
 */
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInstall } from '../../src/install/apply.js';
import { currentTapedeck } from '../../src/install/command.js';
import { resolvedPath } from '../../src/install/real-path.js';
import { type InstallEnv, uniqueLocations } from '../../src/install/targets.js';
import { useCliHarness } from '../helpers/cli.js';

const CONFIG = `${JSON.stringify({ mcpServers: { files: { command: 'node', args: ['server.js'] } } }, null, 2)}\n`;

let dir: string;
let home: string;
let link: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'tapedeck-same-file-')));
  home = join(dir, 'home');
  link = join(dir, 'home-link');
  mkdirSync(join(home, '.cursor'), { recursive: true });
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'node'), '#!/bin/sh\n', { mode: 0o755 });
  writeFileSync(join(home, '.cursor', 'mcp.json'), CONFIG);
  symlinkSync(home, link);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function install(where: InstallEnv) {
  return runInstall({
    mode: 'install',
    targets: ['cursor', 'gemini'],
    where,
    dryRun: false,
    force: false,
    remote: 'skip',
    tapedeck: currentTapedeck(),
    env: { PATH: join(dir, 'bin') },
    platform: process.platform,
  });
}

// Windows makes a symbolic link only with developer mode or as an administrator; the comparison there is by case, which
// platforms.test.ts covers.
const NO_LINKS = process.platform === 'win32';

describe.skipIf(NO_LINKS)('a project folder that is the home folder', () => {
  it('resolves a link in the part of a path that exists and keeps the rest as written', () => {
    expect(resolvedPath(join(link, '.cursor', 'mcp.json'))).toBe(join(home, '.cursor', 'mcp.json'));
    expect(resolvedPath(join(link, '.gemini', 'settings.json'))).toBe(join(home, '.gemini', 'settings.json'));
    expect(resolvedPath(join(dir, 'nowhere', 'a', 'b.json'))).toBe(join(dir, 'nowhere', 'a', 'b.json'));
  });

  it('lists each file once, by the user name, when $HOME is a link to the working folder', () => {
    const where: InstallEnv = { home: link, cwd: home, platform: process.platform };
    // Compared as written, the two names differ: the very duplicate the resolved comparison removes.
    expect(uniqueLocations(['cursor'], where).map((l) => l.path)).toHaveLength(2);
    expect(uniqueLocations(['cursor', 'gemini'], where, resolvedPath).map((l) => [l.scope, l.path])).toEqual([
      ['user', join(link, '.cursor', 'mcp.json')],
      ['user', join(link, '.gemini', 'settings.json')],
    ]);
  });

  it('wraps the server once and writes the file once, whether $HOME is the folder itself or a link to it', () => {
    for (const where of [
      { home, cwd: home, platform: process.platform },
      { home: link, cwd: home, platform: process.platform },
    ]) {
      writeFileSync(join(home, '.cursor', 'mcp.json'), CONFIG);
      const cursor = install(where).filter((outcome) => outcome.location.target === 'cursor');
      expect(cursor).toHaveLength(1);
      expect(cursor[0]!.written).toBe(true);
      const written = JSON.parse(readFileSync(join(home, '.cursor', 'mcp.json'), 'utf8'));
      // Wrapped once: a second pass over the same file would have found it wrapped already, or wrapped it twice.
      expect(written.mcpServers.files.args.filter((arg: string) => arg === 'record')).toHaveLength(1);
    }
  });
});

describe.skipIf(NO_LINKS)('tapedeck install --dry-run from a linked home', () => {
  const io = useCliHarness('tapedeck-install-home-');

  it('shows ~/.cursor/mcp.json once', async () => {
    const real = realpathSync(io.dir);
    mkdirSync(join(real, 'me', '.cursor'), { recursive: true });
    writeFileSync(join(real, 'me', '.cursor', 'mcp.json'), CONFIG);
    symlinkSync(join(real, 'me'), join(real, 'me-link'));
    io.cwd = join(real, 'me');
    io.env.HOME = join(real, 'me-link');
    io.env.PATH = `${join(dir, 'bin')}`;
    expect(await io.run(['install', '--dry-run', '--target', 'cursor'])).toBe(0);
    expect(io.stdout.match(/^Cursor {2}.*$/gm)).toEqual(['Cursor  ~/.cursor/mcp.json']);
    expect(io.stdout).toContain('would change 1 file(s)');
  });
});
