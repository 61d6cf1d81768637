import { describe, expect, it } from 'vitest';
import { TapedeckError } from '../../src/base/errors.js';
import {
  parseByteSize,
  parseDurationFlag,
  parsePositiveInt,
  parseTimeLimitFlag,
} from '../../src/cli/parse.js';

function usageFailure(run: () => unknown): TapedeckError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(TapedeckError);
    expect((err as TapedeckError).code).toBe('usage');
    return err as TapedeckError;
  }
  throw new Error('expected a usage error, got none');
}

describe('parseByteSize', () => {
  it.each([
    ['52428800', 52428800],
    ['1', 1],
    ['50MB', 50 * 1024 * 1024],
    ['50mb', 50 * 1024 * 1024],
    ['16m', 16 * 1024 * 1024],
    ['512k', 512 * 1024],
    ['512KB', 512 * 1024],
    ['2G', 2 * 1024 ** 3],
    ['100b', 100],
    [' 64 KB ', 64 * 1024],
  ])('reads %j as %d bytes', (text, bytes) => {
    expect(parseByteSize('--max-bytes', text)).toBe(bytes);
  });

  it.each(['', '0', '0MB', '-5', '1.5MB', 'lots', '10XB', 'MB', '12 34'])(
    'rejects %j with a usage error naming the flag and the value',
    (text) => {
      const err = usageFailure(() => parseByteSize('--max-message-bytes', text));
      expect(err.message).toContain('--max-message-bytes');
      expect(err.message).toContain(`'${text}'`);
      expect(err.message).not.toContain('\n');
    },
  );
});

describe('parsePositiveInt', () => {
  it('reads whole numbers of at least 1', () => {
    expect(parsePositiveInt('--max-files', '4')).toBe(4);
    expect(parsePositiveInt('--max-files', '1')).toBe(1);
    expect(parsePositiveInt('--max-files', '1000')).toBe(1000);
  });

  it.each(['0', '-1', '2.5', 'four', '', '1e3'])(
    'rejects %j with a usage error naming the flag and value',
    (text) => {
      const err = usageFailure(() => parsePositiveInt('--max-files', text));
      expect(err.message).toContain('--max-files');
      expect(err.message).toContain(`'${text}'`);
    },
  );
});

describe('parseDurationFlag', () => {
  it('reads durations in ms, s, m, h, d and w', () => {
    expect(parseDurationFlag('--max-age', '30d')).toBe(30 * 86_400_000);
    expect(parseDurationFlag('--max-age', '1.5m')).toBe(90_000);
  });

  it.each(['30', 'soon', '0d', '-1d', '3 fortnights'])(
    'refuses the duration %j, naming the forms it takes',
    (value) => {
      expect(usageFailure(() => parseDurationFlag('--max-age', value)).message).toBe(
        `--max-age must be a duration such as 30d, 12h, 90m, 45s, 2w or 500ms (units ms, s, m, h, d, w); got '${value}'`,
      );
    },
  );
});

describe('parseTimeLimitFlag', () => {
  it.each([
    ['5s', 5000],
    ['1.5m', 90_000],
    ['500ms', 500],
    ['2h', 7_200_000],
    ['1500', 1500],
    [' 30000 ', 30_000],
    ['1', 1],
    ['24d', 24 * 86_400_000],
  ])('reads %j as %d ms: a duration, or a bare number of milliseconds', (text, ms) => {
    expect(parseTimeLimitFlag('--timeout', text)).toBe(ms);
  });

  it.each(['0', '0s', '0.1ms', '-5s', '5x', 'soon', '', '1e3', '2.5', '5 seconds'])(
    'refuses %j in one line naming the flag, the value and the forms it takes',
    (text) => {
      expect(usageFailure(() => parseTimeLimitFlag('--timeout', text)).message).toBe(
        `--timeout must be a duration such as 5s, 1.5m or 500ms, or a whole number of milliseconds; got '${text}'`,
      );
    },
  );

  it.each(['25d', '4w', '2147483648'])('refuses %j: longer than a timer can wait', (text) => {
    expect(usageFailure(() => parseTimeLimitFlag('--client-timeout', text)).message).toBe(
      `--client-timeout can be at most 24d (2147483647 ms), the longest a timer waits; got '${text}'`,
    );
  });
});
