/**
 * A trace line nested far deeper than any stack goes (100,000 levels here: a stack overflows past a few thousand;
 * the reader's own test takes two million), through every command that reads traces: one line on stderr naming
 * the trace line, the rest of the trace handled, exit 1 — never a stack overflow. And a line as deep as the limit
 * allows goes through every one of them, in this process's stack as in the CLI's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_NESTING } from '../../src/trace/decode.js';
import { useCliHarness } from '../helpers/cli.js';
import { nested } from '../helpers/deep-json.js';

const DEEP = 100_000;
const io = useCliHarness('tapedeck-deep-', { env: { NO_COLOR: '1' } });
const T = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();

/** meta, a deep request (line 2) and its answer (line 3, as deep), a ping and its answer, the end line. */
function trace(name: string, value: string): string {
  const path = join(io.dir, name);
  const lines = [
    `{"v":1,"type":"meta","startedAt":"${T(0)}","label":"deep","kind":"mcp","producer":{"name":"tapedeck","version":"0"}}`,
    `{"t":"${T(1)}","seq":1,"dir":"in","raw":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":${value}}}}}`,
    `{"t":"${T(2)}","seq":2,"dir":"out","raw":{"jsonrpc":"2.0","id":1,"result":{"structuredContent":${value}}}}`,
    `{"t":"${T(3)}","seq":3,"dir":"in","raw":{"jsonrpc":"2.0","id":2,"method":"ping"}}`,
    `{"t":"${T(4)}","seq":4,"dir":"out","raw":{"jsonrpc":"2.0","id":2,"result":{}}}`,
    `{"t":"${T(5)}","type":"end","durationMs":5,"reason":"process_exit"}`,
  ];
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const COMMANDS: [string, (path: string, other: string) => string[]][] = [
  ['show', (path) => ['show', path]],
  ['show --raw', (path) => ['show', path, '--raw']],
  ['stats', (path) => ['stats', path]],
  ['stats --json', (path) => ['stats', path, '--json']],
  ['scan', (path) => ['scan', path]],
  ['diff', (path, other) => ['diff', path, other]],
  ['convert', (path) => ['convert', path, '--to', 'mcporter']],
  ['report', (path) => ['report', path, '-o', `${path}.html`]],
];

describe('a line nested 100,000 levels deep', () => {
  it.each(COMMANDS)(
    '%s reports it in one line naming the trace line and handles the rest',
    async (_name, argv) => {
      const path = trace('deep.jsonl', nested(DEEP, 'array'));
      const other = trace('other.jsonl', nested(DEEP, 'object'));
      const code = await io.run(argv(path, other));
      expect(io.stderr).not.toMatch(/internal error|RangeError|call stack/);
      const errors = io.stderr.split('\n').filter((row) => row.includes('nested deeper'));
      expect(errors.length).toBeGreaterThan(0);
      for (const row of errors)
        expect(row).toMatch(
          /^tapedeck: error: .*\.jsonl:[23]: JSON nested deeper than 1000 levels, more than tapedeck reads; skipped$/,
        );
      expect(code).toBe(1);
    },
  );

  it('show still prints the rest of the trace', async () => {
    const path = trace('deep.jsonl', nested(DEEP, 'object'));
    expect(await io.run(['show', path])).toBe(1);
    expect(io.stdout).toMatch(/→ ping #2/);
    expect(io.stdout).toMatch(/← ping #2 ✓/);
    expect(io.stdout).toMatch(/■ end/);
  });
});

describe('a line as deep as the limit allows', () => {
  // The deep value sits 5 levels down in the line (line, raw, params, arguments, a).
  it.each(COMMANDS)('%s reads it without an overflow', async (_name, argv) => {
    const path = trace('limit.jsonl', nested(MAX_NESTING - 5, 'array'));
    const other = trace('limit-objects.jsonl', nested(MAX_NESTING - 5, 'object'));
    const code = await io.run(argv(path, other));
    expect(io.stderr).not.toMatch(/internal error|RangeError|call stack|nested deeper/);
    expect(code === 0 || argv(path, other)[0] === 'diff').toBe(true);
  });
});
