import { describe, expect, it } from 'vitest';
import { compile, redactArgv } from '../../src/redact/index.js';

const GHP = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';

describe('command lines', () => {
  const compiled = compile({ defaults: true, rules: [], mode: 'marker' });

  it.each([
    [
      ['--token', 'abc'],
      ['--token', '[REDACTED:token]'],
    ],
    [['--api-key=abc'], ['--api-key=[REDACTED:api-key]']],
    [
      ['-password', 'abc'],
      ['-password', '[REDACTED:password]'],
    ],
    [
      ['API_KEY=abc', 'DEBUG=1'],
      ['API_KEY=[REDACTED:api-key]', 'DEBUG=1'],
    ],
    [
      ['-e', 'GITHUB_TOKEN=abc'],
      ['-e', 'GITHUB_TOKEN=[REDACTED:token]'],
    ],
    [
      ['-H', 'Authorization: Bearer abc'],
      ['-H', 'Authorization: [REDACTED:authorization-header]'],
    ],
    [
      ['--header', 'X-Api-Key:abc'],
      ['--header', 'X-Api-Key:[REDACTED:api-key-header]'],
    ],
    [['--header=Cookie: sid=1'], ['--header=Cookie: [REDACTED:cookie-header]']],
    [['-HX-Auth-Token: t1'], ['-HX-Auth-Token: [REDACTED:token-header]']],
    [
      ['--token', '--verbose'],
      ['--token', '--verbose'],
    ],
    [
      ['--max-tokens', '100', '--progress-token', 'x'],
      ['--max-tokens', '100', '--progress-token', 'x'],
    ],
    [
      ['-H', 'Accept: */*'],
      ['-H', 'Accept: */*'],
    ],
    [
      ['run', `--note=${GHP}`],
      ['run', '--note=[REDACTED:github-token]'],
    ],
  ])('%j → %j', (argv, expected) => {
    expect(redactArgv(argv, compiled)).toEqual(expected);
  });

  it('returns the same array when nothing is hidden', () => {
    const argv = ['npx', '-y', '@modelcontextprotocol/server-everything', 'stdio'];
    expect(redactArgv(argv, compiled)).toBe(argv);
  });
});
