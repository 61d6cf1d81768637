import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TraceLine } from '../../src/trace/types.js';
import { useCliHarness } from '../helpers/cli.js';
import { type Call, list, session, tool } from '../helpers/diff-sessions.js';

// 120 columns: each change fits one line (narrow terminals: terminal-width.test.ts).
const io = useCliHarness('tapedeck-diff-', { env: { COLUMNS: '120' } });
const MCPORTER = join(
  import.meta.dirname,
  '..',
  'fixtures',
  'interop',
  'mcporter',
  'everything-get-sum.ndjson',
);

const sum = (a: number, b: number, latencyMs = 10) =>
  tool('get-sum', { a, b }, `The sum of ${a} and ${b} is ${a + b}.`, latencyMs);
const echo = (message: string) => tool('echo', { message }, `Echo: ${message}`);

function write(name: string, lines: TraceLine[]): string {
  const path = join(io.dir, name);
  writeFileSync(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  return path;
}

function pair(a: Call[], b: Call[]): [string, string] {
  return [write('a.jsonl', session(a)), write('b.jsonl', session(b, { idBase: 50 }))];
}

describe('tapedeck diff', () => {
  it('exits 0 and says so when two sessions asked and got the same', async () => {
    const [a, b] = pair([list(['echo']), echo('hi')], [list(['echo']), echo('hi')]);
    expect(await io.run(['diff', a, b])).toBe(0);
    expect(io.stdout).toBe(
      [
        `a  ${a}  session · 2026-03-01T10:00:00.000Z`,
        `b  ${b}  session · 2026-03-01T10:00:00.000Z`,
        '',
        '= #1     tools/list  10ms → 10ms (±0ms)',
        '= #2     tools/call echo {"message":"hi"}  10ms → 10ms (±0ms)',
        '',
        'no differences: 2 requests in a, 2 in b, all the same; latency ±0ms in all',
        '',
      ].join('\n'),
    );
    expect(io.stderr).toBe('');
  });

  it('exits 1 and prints each changed, removed and added request with its differences and latency', async () => {
    const [a, b] = pair(
      [list(['echo']), sum(2, 3, 10), echo('x'), echo('y')],
      [list(['echo']), sum(2, 4, 25), echo('y'), echo('z')],
    );
    expect(await io.run(['diff', a, b])).toBe(1);
    expect(io.stdout.split('\n').slice(3)).toEqual([
      '= #1     tools/list  10ms → 10ms (±0ms)',
      '~ #2     tools/call get-sum {"a":2,"b":3}  10ms → 25ms (+15ms)',
      '      $.params.arguments.b: 3 → 4',
      '      $.result.content[0].text: "The sum of 2 and 3 is 5." → "The sum of 2 and 4 is 6."',
      '- #3     tools/call echo {"message":"x"}  10ms',
      '= #4     tools/call echo {"message":"y"}  10ms → 10ms (±0ms)',
      '+ b#4    tools/call echo {"message":"z"}  10ms',
      '',
      '4 requests in a, 4 in b: 2 same, 1 changed, 1 removed, 1 added; latency +15ms in all',
      '',
    ]);
  });

  it('--json prints a versioned document with both sides of every item', async () => {
    const [a, b] = pair([sum(2, 3), echo('x')], [sum(2, 4)]);
    expect(await io.run(['diff', a, b, '--json'])).toBe(1);
    const doc = JSON.parse(io.stdout);
    expect(doc).toMatchObject({
      version: 1,
      identical: false,
      a: { path: a, format: 'mcp-tape', label: 'session' },
      summary: { same: 0, changed: 1, added: 0, removed: 1, requests: { a: 2, b: 1 } },
    });
    expect(doc.items[0]).toEqual({
      kind: 'changed',
      method: 'tools/call',
      target: 'get-sum',
      server: null,
      request: 'tools/call get-sum {"a":2,"b":3}',
      a: { index: 0, id: 1, line: 2, outcome: 'ok', latencyMs: 10 },
      b: { index: 0, id: 51, line: 2, outcome: 'ok', latencyMs: 10 },
      params: { entries: [{ path: '$.params.arguments.b', a: 3, b: 4 }], total: 1 },
      result: {
        entries: [
          { path: '$.result.content[0].text', a: 'The sum of 2 and 3 is 5.', b: 'The sum of 2 and 4 is 6.' },
        ],
        total: 1,
      },
      latencyDeltaMs: 0,
    });
    expect(doc.items[1]).toMatchObject({ kind: 'removed', a: { index: 1, line: 4 }, b: null });
  });

  it('--ignore leaves paths of answers and requests out (repeatable)', async () => {
    const [a, b] = pair([tool('now', { ts: 1 }, '10:00')], [tool('now', { ts: 2 }, '10:05')]);
    expect(await io.run(['diff', a, b, '--ignore', '$.result.content[0].text'])).toBe(1);
    io.stdout = '';
    const flags = ['--ignore', '$.result.content[0].text', '--ignore', '$.params.arguments.ts'];
    expect(await io.run(['diff', a, b, ...flags])).toBe(0);
    expect(io.stdout).toContain('no differences');
  });

  it('folds long runs of unchanged requests, and --all prints them', async () => {
    const calls = Array.from({ length: 12 }, (_, i) => echo(`m${i}`));
    const [a, b] = pair(calls, [...calls.slice(0, 6), echo('new'), ...calls.slice(6)]);
    expect(await io.run(['diff', a, b])).toBe(1);
    const lines = io.stdout.split('\n');
    expect(lines.filter((line) => line.startsWith('='))).toHaveLength(4);
    expect(lines).toContain('  … 4 unchanged requests …');
    expect(lines).toContain('+ b#7    tools/call echo {"message":"new"}  10ms');
    io.stdout = '';
    expect(await io.run(['diff', a, b, '--all'])).toBe(1);
    expect(io.stdout.split('\n').filter((line) => line.startsWith('='))).toHaveLength(12);
  });

  it('opens any importable format: an mcporter recording against itself, and one of its servers', async () => {
    expect(await io.run(['diff', MCPORTER, MCPORTER])).toBe(0);
    expect(io.stdout).toContain('no differences: 3 requests in a, 3 in b, all the same');
    io.stdout = '';
    expect(await io.run(['diff', MCPORTER, MCPORTER, '--server', 'everything', '--json'])).toBe(0);
    expect(JSON.parse(io.stdout).items.map((item: { request: string }) => item.request)).toEqual([
      'initialize',
      'tools/list',
      'tools/call get-sum {"a":2,"b":3}',
    ]);
  });

  it('names a server the trace does not hold, exit 2', async () => {
    expect(await io.run(['diff', MCPORTER, MCPORTER, '--server', 'github'])).toBe(2);
    expect(io.stderr).toBe(
      `tapedeck: no server "github" in ${MCPORTER}; it holds "everything": choose one with the server option (--server)\n`,
    );
  });

  it('rejects a bad --ignore path in one line, exit 2', async () => {
    const [a, b] = pair([echo('x')], [echo('x')]);
    expect(await io.run(['diff', a, b, '--ignore', '$.result['])).toBe(2);
    expect(io.stderr).toMatch(/^tapedeck: --ignore '\$\.result\[': .+\n$/);
    expect(io.stdout).toBe('');
  });

  it('needs two traces (exit 2) and names a missing one (exit 1)', async () => {
    const [a] = pair([echo('x')], []);
    expect(await io.run(['diff', a])).toBe(2);
    expect(io.stderr).toContain("missing required argument 'b'");
    io.stderr = '';
    expect(await io.run(['diff', a, join(io.dir, 'nope.jsonl')])).toBe(1);
    expect(io.stderr).toBe(`tapedeck: no such trace file: ${join(io.dir, 'nope.jsonl')}\n`);
  });
});
