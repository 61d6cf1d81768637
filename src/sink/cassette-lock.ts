import { open, readFile, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { TapedeckError } from '../base/errors.js';

/**
 * One writer at a time per cassette. Writing a cassette is read, change, rename (an update adds exchanges to what
 * the file holds at that moment); two runs doing it at once would each write what the other never saw. The lock is
 * a file beside the cassette (`.<name>.lock`, created exclusively, holding the owner's pid): a lock whose process is
 * gone, or that is older than any write takes, is taken over.
 */

export const CASSETTE_LOCK_DEFAULTS = {
  /** How long a run waits for another run's write. */
  waitMs: 30_000,
  /** A lock older than this is stale whoever holds it (a write takes milliseconds). */
  staleMs: 120_000,
  pollMs: 25,
} as const;

/**
 * Runs `work` holding the cassette's lock; fails with TapedeckError('io') naming the lock file when another run
 * holds it for longer than `waitMs`.
 *
 * @example await withCassetteLock('fixtures/s.jsonl', () => rename(part, 'fixtures/s.jsonl'));
 */
export async function withCassetteLock<T>(
  cassette: string,
  work: () => Promise<T>,
  options: Partial<Record<keyof typeof CASSETTE_LOCK_DEFAULTS, number>> = {},
): Promise<T> {
  const settings = { ...CASSETTE_LOCK_DEFAULTS, ...options };
  const path = lockPathFor(cassette);
  const until = Date.now() + settings.waitMs;
  for (;;) {
    if (await tryLock(path)) break;
    if (await stale(path, settings.staleMs)) {
      await unlink(path).catch(() => {});
      continue;
    }
    if (Date.now() > until) {
      throw new TapedeckError(
        'io',
        `cannot write ${cassette}: another tapedeck run has held ${path} for over ${settings.waitMs / 1000} s (remove it if no run is writing)`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, settings.pollMs));
  }
  try {
    return await work();
  } finally {
    await unlink(path).catch(() => {});
  }
}

/** `.<name>.lock` beside the cassette. */
export function lockPathFor(cassette: string): string {
  return join(dirname(cassette), `.${basename(cassette)}.lock`);
}

async function tryLock(path: string): Promise<boolean> {
  try {
    const handle = await open(path, 'wx', 0o600);
    try {
      await handle.writeFile(`${process.pid}\n`);
    } finally {
      await handle.close();
    }
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    throw new TapedeckError('io', `cannot lock ${path}: ${code ?? (err as Error).message}`, { cause: err });
  }
}

async function stale(path: string, staleMs: number): Promise<boolean> {
  try {
    const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    if (Date.now() - info.mtimeMs > staleMs) return true;
    const pid = Number(text.trim());
    // A lock being written has no pid yet: give its owner the moment it needs.
    if (!Number.isInteger(pid) || pid <= 0) return Date.now() - info.mtimeMs > 1000;
    return !processAlive(pid);
  } catch {
    return false; // gone already: the next try takes it
  }
}

/**
 * Whether a process with this pid exists (one we may not signal exists too).
 *
 * @example processAlive(process.pid) // → true
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
