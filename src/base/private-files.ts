import { chmodSync, linkSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Folders and files only their owner may read: tapedeck writes traces, cassettes, keys, tokens and its database
 * 0600 into 0700 folders, so that what was captured from traffic stays the user's.
 */

/**
 * Creates `dir` and any missing parents with mode 0700. Folders that already exist are left as they are: tapedeck
 * must not change the mode of a folder it did not create (such as /tmp or the working folder).
 *
 * @example makePrivateFolder(dirname(tracePath));
 */
export function makePrivateFolder(dir: string): void {
  const first = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (first === undefined) return;
  // mkdir's mode passes through the umask; the folders it created (from `first` down to `dir`) are ours to tighten.
  for (let at = dir; at.length >= first.length; ) {
    chmodSync(at, 0o700);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
}

/**
 * Creates `path` holding `data` unless it exists already (then the file that is there wins): 0600, in a 0700
 * folder (only the folders created here are tightened). It is written under a temporary name and hard-linked into
 * place, so two processes starting at once agree on one file and neither reads a half-written one. Shared by the
 * redaction key and the collector's token.
 *
 * @example createPrivateFileOnce(tokenPath(), `${randomBytes(32).toString('hex')}\n`);
 */
export function createPrivateFileOnce(path: string, data: string | Uint8Array): void {
  const temp = `${path}.${process.pid}.${Date.now().toString(36)}.tmp`;
  try {
    makePrivateFolder(dirname(path));
    writeFileSync(temp, data, { flag: 'wx', mode: 0o600 });
    try {
      linkSync(temp, path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Another process created it first: theirs is the file.
      if (code === 'EEXIST') return;
      // File systems without hard links: an exclusive create is the next best thing.
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err;
      writeFileSync(path, data, { flag: 'wx', mode: 0o600 });
    }
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // Never written, or already gone.
    }
  }
}
