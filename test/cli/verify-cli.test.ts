/**
 * `tapedeck verify` run in-process through the CLI harness against the configurable fixture server: what it
 * prints, and how its flags read.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { encodeLine } from '../../src/trace/encode.js';
import type { Direction, Json } from '../../src/trace/types.js';
import { useCliHarness } from '../helpers/cli.js';
import { call, req, res, traceLines } from '../replay/helpers.js';

const SERVER = fileURLToPath(new URL('../fixtures/servers/changed-server.mjs', import.meta.url));

const io = useCliHarness('tapedeck-verify-cli-');

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

/** Writes a cassette of `steps` (each a recorded message) into the harness folder and returns its path. */
function cassette(name: string, steps: [Direction, Json][]): string {
  const path = join(io.dir, name);
  writeFileSync(path, traceLines(steps).map(encodeLine).join(''));
  return path;
}

describe('verify --timeout', () => {
  it('waits as long as the duration says: 1.5s is 1500 ms', async () => {
    const path = cassette('hang.jsonl', [
      ['in', req(5, 'tools/call', call('hang'))],
      ['out', res(5, text('done'))],
    ]);
    expect(await io.run(['verify', path, '--timeout', '1.5s', '--', process.execPath, SERVER])).toBe(1);
    expect(io.stdout).toContain(
      '✗ #0 tools/call hang (line 2)\n    no answer to tools/call within 1500 ms (raise --timeout if the server is just slow)\n',
    );
    expect(io.stdout).toContain('verified 1 exchange: 0 match, 1 differ\n');
  });
});
