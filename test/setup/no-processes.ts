import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { afterEach } from 'vitest';

const RECORD = Symbol.for('tapedeck.test.processesStarted');

/**
 * The unit project's guard (vitest.config.ts runs it before every unit test file): the unit project starts no
 * processes, so it can use every core and finish in seconds. Every way node:child_process starts one is replaced
 * by a refusal; a test that calls one fails — even when the code under test catches the error and carries on —
 * and the failure says where the test belongs. Tests that need a real process live in the e2e project.
 */

export const STARTERS = [
  'spawn',
  'spawnSync',
  'exec',
  'execSync',
  'execFile',
  'execFileSync',
  'fork',
] as const;

/** The calls refused since the last test ended (on globalThis: every file of a worker shares one record). */
const shared = globalThis as { [RECORD]?: string[] };
shared[RECORD] ??= [];
const started = shared[RECORD];

for (const name of STARTERS) {
  const refuse = (command: unknown) => {
    const what = `${name}(${typeof command === 'string' ? JSON.stringify(command) : '…'})`;
    started.push(what);
    throw new Error(
      `the unit project starts no processes, and this test called ${what}: ` +
        'list its file in E2E_FILES (test/projects.ts) so it runs in the e2e project',
    );
  };
  (childProcess as unknown as Record<string, unknown>)[name] = refuse;
}
// ES module imports of node:child_process (`import { spawn } from …`) see the replacements too.
syncBuiltinESMExports();

afterEach(() => {
  const calls = started.splice(0);
  if (calls.length > 0)
    throw new Error(
      `the unit project starts no processes, and this test called ${calls.join(', ')}: ` +
        'list its file in E2E_FILES (test/projects.ts) so it runs in the e2e project',
    );
});

/**
 * Takes back the refusals recorded so far, so a test that starts a process on purpose — the guard's own test —
 * can check the refusal without failing for it.
 */
export function takeRefusals(): string[] {
  return started.splice(0);
}
