/**
 * A server command written without `--` (PowerShell and the MCP Inspector CLI drop it): the first word that is
 * neither an option nor an option's value starts it, and every word after it is the server's. `verify` takes its
 * cassette first. The executable's early start reads `record`'s options from a list kept in step here. (verify-cli.test.ts
 * and the Inspector's e2e test run commands written so.)
 */
import { describe, expect, it } from 'vitest';
import { RECORD_OPTIONAL_VALUE_OPTIONS, RECORD_VALUE_OPTIONS } from '../../src/cli/early-spawn.js';
import { withServerDashes } from '../../src/cli/flags/server-command.js';
import { type OptionLookup, serverCommandStart, withDashes } from '../../src/cli/flags/server-words.js';
import { buildProgram } from '../../src/cli/main.js';
import { memoryIo } from '../helpers/cli.js';

/** A command with `--out <dir>`, `-o <file>`, `--live [url]` (a URL only), and the flags `-q`, `--quiet`, `-v`. */
const lookup: OptionLookup = (flag) => {
  if (flag === '--out' || flag === '-o') return 'value';
  if (flag === '--live') return { optional: (word) => word.startsWith('http://') };
  if (flag === '-q' || flag === '--quiet' || flag === '-v') return 'none';
  return undefined;
};

describe('where the server command starts', () => {
  it.each([
    ['the first word', ['node', 's.js'], 0, 0],
    ['after an option and its value', ['--out', 'dir', 'node', 's.js'], 0, 2],
    ['after --name=value', ['--out=dir', 'node'], 0, 1],
    ['after -o value', ['-o', 'f', 'node'], 0, 2],
    ['after -ovalue', ['-of', 'node'], 0, 1],
    ['after a group of flags whose last one takes the next word', ['-qo', 'f', 'node'], 0, 2],
    ['after a flag that takes no value', ['--quiet', 'node'], 0, 1],
    ['after an optional value that fits', ['--live', 'http://x', 'node'], 0, 2],
    ['at a word an optional value does not take', ['--live', 'node', 's.js'], 0, 1],
    ['after the leading positional word', ['c.jsonl', 'node', 's.js'], 1, 1],
    ['after options between the leading word and the command', ['c.jsonl', '-q', 'node'], 1, 2],
    ['at - (standard input is a word, not an option)', ['-', 'x'], 1, 1],
  ])('%s', (_what, words, leading, start) => {
    expect(serverCommandStart(words, lookup, leading)).toBe(start);
  });

  it.each([
    ['no positional word', ['--out', 'dir', '-q']],
    ['only the leading word', ['c.jsonl', '--quiet']],
    ['-- before any positional word', ['--out', 'd', '--', 'node']],
    ['an option value that is the last word', ['--out']],
  ])('is nowhere with %s', (_what, words) => {
    const leading = words[0] === 'c.jsonl' ? 1 : 0;
    expect(serverCommandStart(words, lookup, leading)).toBeUndefined();
  });

  it('gives every word after the start to the server, flags and -- included', () => {
    expect(withDashes(['-q', 'node', 's.js', '--out', 'x', '--', '-v'], lookup, 0)).toEqual([
      '-q',
      '--',
      'node',
      's.js',
      '--out',
      'x',
      '--',
      '-v',
    ]);
  });
});

describe('the commands that take a server command', () => {
  async function dashed(argv: string[]): Promise<string[]> {
    const { program } = await buildProgram(argv, memoryIo());
    return withServerDashes(program, argv);
  }

  it.each([
    [
      ['record', '--out', 'd', '--label', 'x', 'node', 's.js', '--out', 'y'],
      ['record', '--out', 'd', '--label', 'x', '--', 'node', 's.js', '--out', 'y'],
    ],
    [
      ['record', '--live', 'node', 's.js'],
      ['record', '--live', '--', 'node', 's.js'],
    ],
    [
      ['record', '--live', 'http://127.0.0.1:7420', '-q', 'node'],
      ['record', '--live', 'http://127.0.0.1:7420', '-q', '--', 'node'],
    ],
    [
      ['record', '--file', 'f.jsonl', '--', 'node', 's.js'],
      ['record', '--file', 'f.jsonl', '--', 'node', 's.js'],
    ],
    [
      ['run', '--cassette', 'c.jsonl', '--mode', 'record', 'node', 's.js', '--mode', 'x'],
      ['run', '--cassette', 'c.jsonl', '--mode', 'record', '--', 'node', 's.js', '--mode', 'x'],
    ],
    [
      ['verify', 'c.jsonl', '--timeout', '5s', 'node', 's.js', '--update'],
      ['verify', 'c.jsonl', '--timeout', '5s', '--', 'node', 's.js', '--update'],
    ],
    [
      ['verify', '--update', 'c.jsonl', 'npx', '-y', 'server'],
      ['verify', '--update', 'c.jsonl', '--', 'npx', '-y', 'server'],
    ],
    [
      ['show', 'trace.jsonl', '--json'],
      ['show', 'trace.jsonl', '--json'],
    ],
    [
      ['help', 'record'],
      ['help', 'record'],
    ],
  ])('%j is read as %j', async (argv, expected) => {
    expect(await dashed(argv)).toEqual(expected);
  });

  it("keeps the early start's list of record's value options in step with the command", async () => {
    const { program } = await buildProgram(['record'], memoryIo());
    const record = program.commands.find((command) => command.name() === 'record')!;
    const longs = (keep: (o: { required: boolean; optional: boolean }) => boolean) =>
      record.options
        .filter(keep)
        .map((o) => o.long!)
        .sort();
    expect(longs((o) => o.required)).toEqual([...RECORD_VALUE_OPTIONS].sort());
    expect(longs((o) => o.optional)).toEqual([...RECORD_OPTIONAL_VALUE_OPTIONS].sort());
    // Every short option of record is a flag without a value (the early lookup knows no short option).
    expect(record.options.filter((o) => o.short !== undefined && (o.required || o.optional))).toEqual([]);
  });
});
