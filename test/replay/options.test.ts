import { describe, expect, it } from 'vitest';
import { parseTiming, REPLAY_DEFAULTS, scaledDelay, withDefaults } from '../../src/replay/options.js';

describe('replay options', () => {
  it('default to keyed matching, no repeats, no delays', () => {
    expect(REPLAY_DEFAULTS).toMatchObject({ match: 'keyed', repeat: 'none', timing: 'none' });
    expect(withDefaults({ match: 'ordered', timing: undefined })).toMatchObject({
      match: 'ordered',
      timing: 'none',
    });
  });

  it('read --timing values', () => {
    expect(parseTiming('none')).toBe('none');
    expect(parseTiming('recorded')).toBe('recorded');
    expect(parseTiming('2')).toBe(2);
    expect(parseTiming('0.5x')).toBe(0.5);
    expect(() => parseTiming('fast')).toThrow(
      'bad timing "fast": expected none, recorded, or a speed factor above 0 such as 2 or 0.5x',
    );
    expect(() => parseTiming('0')).toThrow(expect.objectContaining({ code: 'usage' }));
  });

  it.each([
    [
      { timing: 'fast' },
      "replay option timing must be 'none', 'recorded' or a speed factor above 0; got 'fast'",
    ],
    [{ timing: -1 }, "replay option timing must be 'none', 'recorded' or a speed factor above 0; got -1"],
    [{ match: 'bogus' }, "replay option match must be 'keyed' or 'ordered'; got 'bogus'"],
    [{ repeat: 'sometimes' }, "replay option repeat must be 'none' or 'last'; got 'sometimes'"],
    [{ answerTimeoutMs: 0 }, 'replay option answerTimeoutMs must be a number of milliseconds above 0; got 0'],
    [{ ignore: '$.params' }, "replay option ignore must be an array; got '$.params'"],
  ])('refuse %j in one line, as the CLI refuses a bad flag', (options, message) => {
    expect(() => withDefaults(options as never)).toThrow(message);
    expect(() => withDefaults(options as never)).toThrow(expect.objectContaining({ code: 'usage' }));
  });

  it('scale recorded gaps, capped', () => {
    expect(scaledDelay(1000, 'none', 60_000)).toBe(0);
    expect(scaledDelay(1000, 'recorded', 60_000)).toBe(1000);
    expect(scaledDelay(1000, 4, 60_000)).toBe(250);
    expect(scaledDelay(600_000, 'recorded', 60_000)).toBe(60_000);
  });
});
