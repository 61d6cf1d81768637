/**
 * Quoting for cmd.exe: every argument reaches the program behind a batch-file shim unchanged, and none is ever
 * read as a command, checked against a model of cmd.exe's parser (cmd-model.ts) for each metacharacter, empty
 * arguments, trailing backslashes, quotes, spaces, non-ASCII letters and thousands of random arguments.
 */
import { describe, expect, it } from 'vitest';
import {
  batchCommandLine,
  cmdArgs,
  escapeForCmd,
  quoteWindowsArg,
  SpawnPlanError,
} from '../../src/process/cmd-line.js';
import { parseArgv, percentPhase, runThroughShim, specialPhase } from './cmd-model.js';

const NPX = 'C:\\Program Files\\nodejs\\npx.cmd';
/** Variables a real machine has, plus ones named like fragments of the arguments below. */
const ENV = {
  PATH: 'C:\\Windows\\system32',
  USERPROFILE: 'C:\\Users\\me',
  a: 'EXPANDED-a',
  b: 'EXPANDED-b',
  cd: 'C:\\here',
  x: 'EXPANDED-x',
};

const through = (args: string[], command = NPX) =>
  runThroughShim(cmdArgs(batchCommandLine(command, args)), ENV);

describe('quoting for the C runtime', () => {
  it('round-trips quotes, spaces, empty arguments and backslashes', () => {
    const cases = [
      '',
      'plain',
      'two words',
      'say "hi"',
      '"',
      '""',
      'C:\\dir\\',
      'C:\\dir\\\\',
      'a\\"b',
      'a\\\\"b',
      '\\\\server\\share\\',
      '\t tab and spaces \t',
      'Zoë 日本語',
    ];
    for (const arg of cases) expect(parseArgv(`prog ${quoteWindowsArg(arg)}`)).toEqual(['prog', arg]);
    expect(quoteWindowsArg('')).toBe('""');
    expect(quoteWindowsArg('C:\\dir\\')).toBe('"C:\\dir\\\\"');
    expect(quoteWindowsArg('say "hi"')).toBe('"say \\"hi\\""');
  });
});

describe('escaping for cmd.exe', () => {
  it('puts a caret before every character cmd.exe acts on', () => {
    expect(escapeForCmd('a&b|c<d>e(f)g^h"i%j!k l;m,n=o\tp')).toBe(
      'a^&b^|c^<d^>e^(f^)g^^h^"i^%j^!k^ l^;m^,n^=o^\tp',
    );
    // One reading by cmd.exe gives the text back, with no operator acted on.
    const text = 'a&b|c<d>e(f)g^h"i%PATH%j!k l';
    const read = specialPhase(percentPhase(escapeForCmd(text), ENV));
    expect(read.text).toBe(text);
    expect(read.operators).toEqual([]);
  });

  it('runs the batch file itself, by its path, spaces and parentheses included', () => {
    expect(through(['-y']).command).toBe(NPX);
    const x86 = 'C:\\Program Files (x86)\\tools & more\\serve.cmd';
    const run = through(['x'], x86);
    expect(run.command).toBe(x86);
    expect(run.operators).toEqual([]);
  });

  it('carries every metacharacter to the program unchanged, never as an operator', () => {
    const nasty = [
      'a&b',
      'a|b',
      'a^b',
      '^',
      '^^',
      'a<b',
      'a>b',
      '(a)',
      ')',
      '%PATH%',
      '%a%b%',
      '%%',
      '%',
      '%cd%',
      '!a!',
      '!',
      'a"&calc',
      '"&calc&"',
      'x" & calc & "',
      '\\"&calc',
      '\\',
      'trailing\\',
      'C:\\Program Files\\',
      'a b',
      '',
      ' ',
      'a;b,c=d',
      '@echo',
      ':label',
      '--flag=va&lue',
      '{"json": "value & more", "n": 1}',
      'Zoë & 日本語',
    ];
    const run = through(nasty);
    expect(run.operators).toEqual([]);
    expect(run.argv).toEqual(nasty);
    // Each alone too: an argument's neighbours cannot be what keeps it safe.
    for (const arg of nasty) {
      const alone = through(['-y', arg]);
      expect(alone.operators).toEqual([]);
      expect(alone.argv).toEqual(['-y', arg]);
    }
  });

  it('survives thousands of random arguments built from the characters cmd.exe cares about', () => {
    // A small seeded generator: the same arguments on every run.
    let seed = 20260817;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const alphabet = [
      '&',
      '|',
      '<',
      '>',
      '(',
      ')',
      '^',
      '"',
      '%',
      '!',
      ' ',
      '\t',
      ';',
      ',',
      '=',
      '\\',
      'a',
      'x',
      'é',
    ];
    const failures: unknown[] = [];
    for (let round = 0; round < 2000; round++) {
      const args = Array.from({ length: 1 + Math.floor(next() * 3) }, () =>
        Array.from(
          { length: Math.floor(next() * 8) },
          () => alphabet[Math.floor(next() * alphabet.length)]!,
        ).join(''),
      );
      const run = through(args);
      // Checked in plain code, the failures asserted once: thousands of expect() calls cost more than the model.
      if (run.operators.length > 0 || JSON.stringify(run.argv) !== JSON.stringify(args))
        failures.push({ args, operators: run.operators, argv: run.argv });
    }
    expect(failures).toEqual([]);
  });

  it('needs both escapes: quoting for one reading lets the shim run a command (the model has teeth)', () => {
    const once = (args: string[]) =>
      runThroughShim(
        cmdArgs([escapeForCmd(NPX), ...args.map((a) => escapeForCmd(quoteWindowsArg(a)))].join(' ')),
        ENV,
      );
    expect(once(['a"&calc']).operators).toContain('&');
    // Node's own quoting (backslash before a quote, no carets) is read by cmd.exe the same way.
    const plain = runThroughShim(cmdArgs(`${escapeForCmd(NPX)} ${quoteWindowsArg('a"&calc')}`), ENV);
    expect(plain.operators).toContain('&');
    expect(through(['a"&calc']).operators).toEqual([]);
  });

  it('refuses an argument with a line break or NUL, which cmd.exe cannot carry', () => {
    for (const arg of ['a\nb', 'a\r\nb', 'a\rb', 'a\0b']) {
      expect(() => batchCommandLine(NPX, ['ok', arg])).toThrow(SpawnPlanError);
    }
    expect(() => batchCommandLine(NPX, ['ok', 'a\nb'])).toThrow(/argument 2 .* line break/);
  });

  it('gives cmd.exe its switches and the line in one pair of quotes', () => {
    expect(cmdArgs('x')).toEqual(['/d', '/e:on', '/v:off', '/s', '/c', '"x"']);
    expect(batchCommandLine(NPX, ['-y', 'a&b'])).toBe(
      'C:\\Program^ Files\\nodejs\\npx.cmd ^^^"-y^^^" ^^^"a^^^&b^^^"',
    );
  });
});
