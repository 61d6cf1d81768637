import { accessSync, constants, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where tests put databases: a RAM-backed folder when the system has one (Linux's /dev/shm), else the temp folder.
 * The collector's SQLite database syncs every transaction to disk (WAL, synchronous FULL); on a disk shared with
 * other work each sync can take tens of milliseconds, and route tests open a database per test. What is tested
 * in process is the API, not the disk: durability is the crash tests' (e2e, on the real temp folder).
 */
const RAM = (() => {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return undefined;
  }
})();

/**
 * A fresh folder for a test's database, in memory where possible; the caller removes it.
 *
 * @example const dir = scratchDir('tapedeck-collector-'); … rmSync(dir, { recursive: true, force: true });
 */
export function scratchDir(prefix: string): string {
  return mkdtempSync(join(RAM ?? tmpdir(), prefix));
}
