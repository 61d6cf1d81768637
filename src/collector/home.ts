import { randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, fchmodSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname } from 'node:path';
import { TapedeckError } from '../base/errors.js';
import { openNoFollow, readNoFollow } from '../base/no-follow.js';
import { createPrivateFileOnce, makePrivateFolder } from '../base/private-files.js';

/**
 * The collector's files (the database and the write token; src/base/paths.ts says where they are by default) and
 * how the token is made: 32 random bytes as hex, 0600, in a 0700 folder, created once and shared by `serve`,
 * `push` and `record --live`. Neither file is ever opened through a symbolic link (src/base/no-follow.ts).
 */

/** A path as a person reads it: the home folder shown as `~`. @example shownPath('/home/me/.tapedeck/token') // '~/.tapedeck/token' */
export function shownPath(path: string): string {
  const home = homedir();
  return home !== '' && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

const TOKEN_PATTERN = /^[0-9a-f]{64}$/;

/**
 * Reads the token at `path`, creating it first when missing. Creation is atomic (written under a temporary name
 * and hard-linked into place), so two processes starting at once agree on one token.
 *
 * @example const token = loadOrCreateToken(tokenPath());
 */
export function loadOrCreateToken(path: string): string {
  const existing = readToken(path);
  if (existing !== undefined) return existing;
  createToken(path);
  const created = readToken(path);
  if (created === undefined) throw tokenError(path, 'it vanished right after it was created');
  return created;
}

/**
 * Reads the token at `path`, or undefined when there is none.
 *
 * @example readToken(tokenPath()) // → 'a3f…' (64 hex digits)
 */
export function readToken(path: string): string | undefined {
  let text: string;
  try {
    text = readNoFollow(path).toString('utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw tokenError(path, `cannot read it: ${(err as Error).message}`);
  }
  if (!TOKEN_PATTERN.test(text))
    throw tokenError(path, 'it does not hold 64 hex digits; delete it to make a new one');
  return text;
}

/** Compares a presented token with the real one in constant time. */
export function tokenMatches(presented: string | undefined, token: string): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Creates the folder of `path` 0700 (only the folders created here are tightened) and, when `file` is set, the
 * file itself 0600 if it does not exist yet, so SQLite's side files inherit that mode. A link in the file's place
 * is refused (the mode is set through the open file, never through a name).
 */
export function ensurePrivateFile(path: string, file: boolean): void {
  makePrivateFolder(dirname(path));
  if (!file) return;
  const fd = openNoFollow(path, 'append');
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

function createToken(path: string): void {
  try {
    createPrivateFileOnce(path, `${randomBytes(32).toString('hex')}\n`);
  } catch (err) {
    throw tokenError(path, `cannot create it: ${(err as Error).message}`);
  }
}

function tokenError(path: string, problem: string): TapedeckError {
  return new TapedeckError(
    'io',
    `collector token ${path}: ${problem} (set TAPEDECK_HOME to use another folder)`,
  );
}
