import { createHmac, randomBytes } from 'node:crypto';
import { TapedeckError } from '../base/errors.js';
import { isSymlink, readNoFollow } from '../base/no-follow.js';
import { redactKeyPath } from '../base/paths.js';
import { createPrivateFileOnce } from '../base/private-files.js';
import type { ValueHasher } from './types.js';

/**
 * The per-install key behind `hash` mode. Markers carry HMAC-SHA256(value) under a key that never leaves this
 * machine, so equal secrets get equal markers across traces without a dictionary attack on short values being
 * possible for someone who only has the trace.
 */

export const REDACT_KEY_BYTES = 32;

/**
 * Reads the key, creating it on first use: 32 random bytes, 0600, in a 0700 folder. Creation is atomic (written
 * under a temporary name, then hard-linked into place), so two recorders starting at once agree on one key and
 * neither reads a half-written file.
 *
 * @example const hasher = createKeyedHasher(loadRedactKey());
 */
export function loadRedactKey(env: NodeJS.ProcessEnv = process.env): Buffer {
  const path = redactKeyPath(env);
  const existing = readKey(path);
  if (existing !== undefined) return existing;
  createKey(path);
  const created = readKey(path);
  if (created === undefined) throw keyError(path, 'it vanished right after it was created');
  return created;
}

/**
 * A ValueHasher: hex HMAC-SHA256 of the value under `key`.
 *
 * @example createKeyedHasher(Buffer.alloc(32))('secret').length === 64
 */
export function createKeyedHasher(key: Buffer): ValueHasher {
  return (value) => createHmac('sha256', key).update(value, 'utf8').digest('hex');
}

/**
 * The key as stored, or undefined when there is none yet. The file is opened without following a link (as it is
 * written): a link planted in its place could hand tapedeck a key someone else knows, or make it read a file it
 * should not, so a link is refused, never followed — a dangling one too, rather than a key created through it.
 */
function readKey(path: string): Buffer | undefined {
  let key: Buffer;
  try {
    key = readNoFollow(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (isSymlink(path)) {
      throw keyError(
        path,
        'it is a symbolic link, and tapedeck does not follow links to its key; remove the link (a new key is then made) or put the key file itself there',
        err,
      );
    }
    throw keyError(path, `cannot read it: ${(err as Error).message}`, err);
  }
  if (key.length !== REDACT_KEY_BYTES) {
    throw keyError(
      path,
      `it holds ${key.length} bytes, expected ${REDACT_KEY_BYTES}; delete it to make a new key ` +
        '(hash markers in new traces will then differ from older ones)',
    );
  }
  return key;
}

function createKey(path: string): void {
  try {
    createPrivateFileOnce(path, randomBytes(REDACT_KEY_BYTES));
  } catch (err) {
    throw keyError(path, `cannot create it: ${(err as Error).message}`, err);
  }
}

function keyError(path: string, problem: string, cause?: unknown): TapedeckError {
  return new TapedeckError(
    'io',
    `redaction key ${path}: ${problem} (set TAPEDECK_HOME to use another folder)`,
    {
      cause,
    },
  );
}
