/**
 * The fixtures example (examples/fixtures: a vitest project using `useCassette` against server-everything) run as
 * a user runs it, so the documented library path cannot rot: in place from its committed cassette with
 * TAPEDECK_MODE=replay (CI: offline, no server), and the whole loop in a fresh copy with tapedeck installed the way
 * a user has it — the first run records, the second replays, CI mode passes.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, NODE_MODULES, REPO_ROOT, removeTempDir } from '../helpers/peers.js';

const EXAMPLE = join(REPO_ROOT, 'examples', 'fixtures');
const CASSETTE = join('__cassettes__', 'everything.jsonl');
const VITEST = join(NODE_MODULES, 'vitest', 'vitest.mjs');
/** server-everything says this on stderr when it starts: its absence proves a run started no server. */
const SERVER_STARTED = 'Starting default (STDIO) server';

/** `vitest run` in `root`, with this process's environment minus vitest's own and tapedeck's mode, plus `env`. */
function vitestRun(root: string, env: Record<string, string> = {}) {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(VITEST|TAPEDECK_MODE$|NODE_OPTIONS$)/.test(key)),
  );
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [VITEST, 'run', '--root', root], {
      cwd: root,
      env: { ...base, TAPEDECK_HOME: join(root, '.tapedeck-home'), NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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

describe('examples/fixtures', () => {
  it('passes in CI mode from its committed cassette: offline, no server started, the cassette untouched', async () => {
    const before = readFileSync(join(EXAMPLE, CASSETTE));
    const { code, output } = await vitestRun(EXAMPLE, { TAPEDECK_MODE: 'replay' });
    expect(output).toMatch(/Tests\s+1 passed/);
    expect(output).not.toContain(SERVER_STARTED);
    expect(code).toBe(0);
    expect(readFileSync(join(EXAMPLE, CASSETTE))).toEqual(before);
  });

  describe('the loop in a fresh copy', () => {
    let copy: string;
    beforeAll(async () => {
      copy = await makeTempDir('tapedeck-example-');
      for (const file of ['everything.test.ts', 'vitest.config.ts'])
        copyFileSync(join(EXAMPLE, file), join(copy, file));
      // Installed as a user has it: the package and its peers in node_modules.
      mkdirSync(join(copy, 'node_modules'));
      symlinkSync(REPO_ROOT, join(copy, 'node_modules', 'mcp-tapedeck'), 'dir');
      symlinkSync(join(NODE_MODULES, 'vitest'), join(copy, 'node_modules', 'vitest'), 'dir');
      symlinkSync(
        join(NODE_MODULES, '@modelcontextprotocol'),
        join(copy, 'node_modules', '@modelcontextprotocol'),
        'dir',
      );
    });
    afterAll(() => removeTempDir(copy));

    it('records on the first run, replays on the second, and passes in CI mode', async () => {
      const first = await vitestRun(copy);
      expect(first.output).toMatch(/Tests\s+1 passed/);
      expect(first.output).toContain(SERVER_STARTED);
      expect(first.code).toBe(0);
      const recorded = readFileSync(join(copy, CASSETTE));
      expect(recorded.toString('utf8').split('\n')[0]).toContain('"type":"meta"');

      const second = await vitestRun(copy);
      expect(second.output).toMatch(/Tests\s+1 passed/);
      expect(second.output).not.toContain(SERVER_STARTED);
      expect(readFileSync(join(copy, CASSETTE))).toEqual(recorded);

      const ci = await vitestRun(copy, { TAPEDECK_MODE: 'replay' });
      expect(ci.output).toMatch(/Tests\s+1 passed/);
      expect(ci.code).toBe(0);
      expect(existsSync(join(copy, '.tapedeck-home'))).toBe(false);
    });
  });
});
