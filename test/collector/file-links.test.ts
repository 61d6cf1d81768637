/**
 * The collector's own files — the database, its WAL and shared-memory side files, the write token — are never
 * opened through a symbolic link: a link planted in their place is refused with one line, and the file it points
 * at keeps its content and its mode.
 */
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openCollectorApp } from '../../src/collector/app.js';
import { loadOrCreateToken, readToken } from '../../src/collector/index.js';
import { TEST_TOKEN } from './helpers.js';

let dir: string;
let home: string;
let outside: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tapedeck-collector-links-'));
  home = join(dir, 'home');
  outside = join(dir, 'outside');
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(outside);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const RC = 'export PATH=/usr/bin:/bin\n';

describe("the collector's files and symbolic links", () => {
  it('refuses a database path that is a link, and leaves the file it points at as it was', async () => {
    const target = join(outside, 'bashrc');
    writeFileSync(target, RC);
    chmodSync(target, 0o644);
    const dbPath = join(home, 'tapedeck.db');
    symlinkSync(target, dbPath);
    expect(() => openCollectorApp({ dbPath, token: TEST_TOKEN })).toThrow(
      `cannot open the collector database ${dbPath}: ${dbPath} is a symbolic link`,
    );
    expect(readFileSync(target, 'utf8')).toBe(RC);
    expect(statSync(target).mode & 0o777).toBe(0o644);
  });

  it.each(['-wal', '-shm', '-journal'])('refuses a database whose %s file is a link', async (suffix) => {
    const target = join(outside, `side${suffix}`);
    writeFileSync(target, RC);
    const dbPath = join(home, 'tapedeck.db');
    symlinkSync(target, `${dbPath}${suffix}`);
    expect(() => openCollectorApp({ dbPath, token: TEST_TOKEN })).toThrow(
      `${dbPath}${suffix} is a symbolic link`,
    );
    expect(readFileSync(target, 'utf8')).toBe(RC);
  });

  it('refuses a token file that is a link instead of taking the token from wherever it points', () => {
    const planted = join(outside, 'token');
    writeFileSync(planted, `${'cd'.repeat(32)}\n`);
    const path = join(home, 'token');
    symlinkSync(planted, path);
    expect(() => readToken(path)).toThrow(`${path} is a symbolic link`);
    expect(() => loadOrCreateToken(path)).toThrow(`${path} is a symbolic link`);
    // A dangling link is not replaced by a token written where it points either.
    const dangling = join(home, 'token2');
    symlinkSync(join(outside, 'made-by-tapedeck'), dangling);
    expect(() => loadOrCreateToken(dangling)).toThrow(`${dangling} is a symbolic link`);
    expect(() => readFileSync(join(outside, 'made-by-tapedeck'))).toThrow();
  });
});
