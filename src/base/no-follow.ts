import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync } from 'node:fs';
import { TapedeckError } from './errors.js';

/**
 * File operations that never follow a symbolic link. A folder tapedeck writes into (a data folder, a trace folder,
 * a fixture folder checked out from someone else's repository) may hold a link planted to make tapedeck append to
 * a shell rc file, or copy a private file into the folder. So a file tapedeck opens by a name of its own making,
 * or rewrites in place, is opened with O_NOFOLLOW: a link in its place is refused, never followed. Shared by the
 * trace sink, `tapedeck mcp`'s data folder, the in-place rewrites, the collector's files and install.
 */

/** O_NOFOLLOW where the platform has one; elsewhere (Windows) an lstat before the open stands in. */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * What an open is for: `read`; `write` (create or truncate); `create` (only a new file); `append`; `update` (read
 * and write in place, no create).
 */
export type OpenIntent = 'read' | 'write' | 'create' | 'append' | 'update';

const FLAGS: Record<OpenIntent, number> = {
  read: constants.O_RDONLY,
  write: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC,
  create: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
  append: constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND,
  update: constants.O_RDWR,
};

/**
 * The numeric open flags for `intent`, O_NOFOLLOW included: for `fs.open`, `fs.promises.open` or a stream's `flags`.
 *
 * @example openSync(path, noFollowFlags('append'), 0o600)
 */
export function noFollowFlags(intent: OpenIntent): number {
  return FLAGS[intent] | NOFOLLOW;
}

/**
 * The one-line refusal for a link where a file was expected, with what to do about it.
 *
 * @example linkRefusal('/d/a.jsonl') // TapedeckError: "/d/a.jsonl is a symbolic link: tapedeck does not follow …"
 */
export function linkRefusal(path: string, cause?: unknown): TapedeckError {
  return new TapedeckError(
    'io',
    `${path} is a symbolic link: tapedeck does not follow links when it writes or reads its own files; remove the link, or name the file it points to`,
    cause === undefined ? undefined : { cause },
  );
}

/** True when `err` is what an O_NOFOLLOW open of a symbolic link fails with (ELOOP; EMLINK on the BSDs). */
export function isLinkError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ELOOP' || code === 'EMLINK';
}

/** True when `path` is a symbolic link itself (whatever it points at); false when it is anything else or missing. */
export function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Fails with {@link linkRefusal} when `path` is a symbolic link; a missing file is fine. For files tapedeck is
 * about to rewrite in place through a rename (which would replace the link with a copy of what it points at).
 *
 * @example refuseLink('fixtures/session.jsonl'); await writePrivateFile('fixtures/session.jsonl', lines);
 */
export function refuseLink(path: string): void {
  if (isSymlink(path)) throw linkRefusal(path);
}

/**
 * Opens `path` without following a symbolic link in its place; a link fails with {@link linkRefusal}, other
 * failures are the usual fs errors. New files get `mode` (0600 by default).
 *
 * @example const fd = openNoFollow('/d/my_session.jsonl', 'append'); writeSync(fd, line); closeSync(fd);
 */
export function openNoFollow(path: string, intent: OpenIntent, mode = 0o600): number {
  if (NOFOLLOW === 0) refuseLink(path);
  try {
    return openSync(path, noFollowFlags(intent), mode);
  } catch (err) {
    if (isLinkError(err)) throw linkRefusal(path, err);
    throw err;
  }
}

/**
 * Reads a whole regular file without following a link in its place. A FIFO or device planted there is refused
 * too (opened without blocking, so a FIFO nobody writes to cannot hang the reader).
 *
 * @example JSON.parse(readNoFollow('/d/my_session.recording').toString('utf8'))
 */
export function readNoFollow(path: string): Buffer {
  if (NOFOLLOW === 0) refuseLink(path);
  let fd: number;
  try {
    fd = openSync(path, noFollowFlags('read') | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    if (isLinkError(err)) throw linkRefusal(path, err);
    throw err;
  }
  try {
    if (!fstatSync(fd).isFile())
      throw new TapedeckError('io', `${path} is not a regular file (a pipe or a device); expected a file`);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
