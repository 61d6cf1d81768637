/**
 * The vitest matchers as a user meets them: `vitest run` in examples/gates, which imports `mcp-tapedeck/vitest`
 * by the package's own name (the built dist/), over the fixtures example's committed cassette.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NODE_MODULES, REPO_ROOT } from '../helpers/peers.js';

const EXAMPLE = join(REPO_ROOT, 'examples', 'gates');

function vitestRun(root: string) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(VITEST|NODE_OPTIONS$)/.test(key)),
  );
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(
      process.execPath,
      [join(NODE_MODULES, 'vitest', 'vitest.mjs'), 'run', '--root', root],
      {
        cwd: root,
        env: { ...env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      output += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      output += text;
    });
    child.once('close', (code) => resolve({ code, output }));
  });
}

describe('examples/gates', () => {
  it('passes: the matchers read the cassette, and a failing one says what was called instead', async () => {
    const { code, output } = await vitestRun(EXAMPLE);
    expect(output).toMatch(/Tests\s+3 passed/);
    expect(code).toBe(0);
  });
});
