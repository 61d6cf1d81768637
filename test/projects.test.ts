/**
 * The three vitest projects: the unit project refuses to start a process (the guard fails the test and says
 * where it belongs), and every file the project lists (and test/platform.ts leaves out on Windows) exists.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { POSIX_ONLY } from './platform.js';
import { BROWSER_FILES, E2E_FILES } from './projects.js';
import { takeRefusals } from './setup/no-processes.js';

const root = join(import.meta.dirname, '..');

describe('the vitest projects', () => {
  it('start no process in the unit project: the call fails, naming where the test belongs', () => {
    expect(() => spawn(process.execPath, ['-e', ''])).toThrow(/starts no processes.*E2E_FILES/);
    expect(() => spawnSync('true')).toThrow(/spawnSync\("true"\)/);
    // The afterEach check would fail this test too; taking the refusals back leaves only the checks above.
    expect(takeRefusals()).toEqual([`spawn(${JSON.stringify(process.execPath)})`, 'spawnSync("true")']);
  });

  it('name test files that exist, each e2e file with what it starts', () => {
    for (const [file, reason] of Object.entries(E2E_FILES)) {
      expect(existsSync(join(root, file)), file).toBe(true);
      expect(reason.length, file).toBeGreaterThan(5);
    }
    for (const file of [...BROWSER_FILES, ...Object.keys(POSIX_ONLY)])
      expect(existsSync(join(root, file)), file).toBe(true);
  });
});
