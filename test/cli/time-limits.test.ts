/**
 * The time-limit flags (verify --timeout, run --timeout, replay --client-timeout) as a user types them: the one
 * duration grammar, a bare number still meaning milliseconds, and one line with exit 2 for anything else.
 */
import { describe, expect, it } from 'vitest';
import { useCliHarness } from '../helpers/cli.js';

const EXPECTED = 'must be a duration such as 5s, 1.5m or 500ms, or a whole number of milliseconds';

const io = useCliHarness('tapedeck-time-limits-');

/** What each command looks like with its time-limit flag set to `value` (the cassette does not exist). */
const commands: [string, (value: string) => string[]][] = [
  [
    'verify --timeout',
    (value) => ['verify', '/nonexistent/c.jsonl', '--timeout', value, '--', 'node', 's.js'],
  ],
  [
    'run --timeout',
    (value) => ['run', '--cassette', '/nonexistent/c.jsonl', '--mode', 'replay', '--timeout', value],
  ],
  ['replay --client-timeout', (value) => ['replay', '/nonexistent/c.jsonl', '--client-timeout', value]],
];

describe.each(commands)('%s', (name, argv) => {
  const flag = name.split(' ')[1] as string;

  it.each(['5s', '1.5m', '500ms', '30000'])('takes %j and goes on to read the cassette', async (value) => {
    // Past the flags, the missing cassette is what fails: bad input (1), not usage (2).
    expect(await io.run(argv(value))).toBe(1);
    expect(io.stderr).toMatch(/^tapedeck: no (such )?cassette/);
  });

  it.each(['5x', '0', 'soon'])('refuses %j in one line naming it, exit 2', async (value) => {
    expect(await io.run(argv(value))).toBe(2);
    expect(io.stderr).toBe(`tapedeck: ${flag} ${EXPECTED}; got '${value}'\n`);
    expect(io.stdout).toBe('');
  });
});

describe('verify --help', () => {
  it('names the forms --timeout takes', async () => {
    expect(await io.run(['verify', '--help'])).toBe(0);
    expect(io.stdout).toMatch(
      /--timeout <duration>\s+how long each request may take, such as 5s, 1\.5m or\s+500ms \(a bare number is milliseconds\)/,
    );
  });
});
