import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliHarness } from '../helpers/cli.js';

const io = useCliHarness('tapedeck-exit-', { isolateHome: false });

const meta = JSON.stringify({ v: 1, type: 'meta', startedAt: '2026-01-01T00:00:00.000Z', label: 'x' });
const ping = JSON.stringify({
  t: '2026-01-01T00:00:01.000Z',
  dir: 'in',
  raw: { jsonrpc: '2.0', id: 1, method: 'ping' },
});
const pong = JSON.stringify({
  t: '2026-01-01T00:00:02.000Z',
  dir: 'out',
  raw: { jsonrpc: '2.0', id: 1, result: {} },
});

function trace(name: string, text: string): string {
  const path = join(io.dir, name);
  writeFileSync(path, text);
  return path;
}

describe('exit codes of the reading commands', () => {
  it.each([['show'], ['stats']])(
    '%s shows what it can of a trace with a corrupt line, names the line, and exits 1',
    async (command) => {
      const path = trace('corrupt.jsonl', `${meta}\n${ping}\nGARBAGE\n${pong}\n`);
      expect(await io.run([command, path])).toBe(1);
      expect(io.stderr).toMatch(/corrupt\.jsonl:3: not valid JSON/);
      expect(io.stdout).toMatch(/ping/);
    },
  );

  it.each([['show'], ['stats']])(
    '%s exits 0 on a trace that was cut off mid-line by a killed recorder (reported, not fatal)',
    async (command) => {
      const path = trace('cut.jsonl', `${meta}\n${ping}\n${pong}\n{"t":"2026-01-01T00:00:0`);
      expect(await io.run([command, path])).toBe(0);
      expect(io.stdout).toMatch(/ping/);
    },
  );

  it('one failing run does not leak its exit code into the next', async () => {
    const bad = trace('bad.jsonl', `${meta}\nGARBAGE\n`);
    const good = trace('good.jsonl', `${meta}\n${ping}\n${pong}\n`);
    expect(await io.run(['show', bad])).toBe(1);
    expect(await io.run(['show', good])).toBe(0);
  });

  it.each([
    [['show'], 2, /show needs a trace file, or --last/],
    [['show', '--bogus', 'x'], 2, /unknown option '--bogus'/],
    [['frobnicate'], 2, /unknown command 'frobnicate'/],
    [['stats', '/nonexistent/trace.jsonl'], 1, /no such trace file: \/nonexistent\/trace\.jsonl/],
  ])('tapedeck %j exits %i with one line naming the problem', async (argv, code, message) => {
    expect(await io.run(argv)).toBe(code);
    expect(io.stderr).toMatch(message);
    expect(io.stderr.trim().split('\n')).toHaveLength(1);
  });
});
