import { describe, expect, it } from 'vitest';
import { BYTE_STYLES, formatBytes, parseDuration } from '../../src/base/units.js';

const DAY = 86_400_000;

describe('durations: one grammar for every flag and API field', () => {
  it('reads whole and decimal counts in ms, s, m, h, d and w, any case, spaces allowed', () => {
    expect(parseDuration('30d')).toBe(30 * DAY);
    expect(parseDuration('12h')).toBe(12 * 3_600_000);
    expect(parseDuration('1.5m')).toBe(90_000);
    expect(parseDuration('2w')).toBe(14 * DAY);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration(' 7 D ')).toBe(7 * DAY);
    expect(parseDuration('0.5s')).toBe(500);
  });

  it.each(['30', 'soon', '0d', '-1d', '3 fortnights', '1e3s', '.5s', '0.4ms', ''])('refuses %j', (value) => {
    expect(parseDuration(value)).toBeUndefined();
  });
});

describe('byte counts, scaled by 1024, in the style of where they are shown', () => {
  it('terminal tables: bytes, then one decimal of KiB, MiB, GiB, TiB', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KiB');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(5 * 1024 ** 3)).toBe('5.0 GiB');
    expect(formatBytes(3 * 1024 ** 5)).toBe('3072.0 TiB');
  });

  it('sentences: whole counts without decimals', () => {
    expect(formatBytes(512, BYTE_STYLES.prose)).toBe('512 bytes');
    expect(formatBytes(4096, BYTE_STYLES.prose)).toBe('4 KiB');
    expect(formatBytes(1536, BYTE_STYLES.prose)).toBe('1.5 KiB');
    expect(formatBytes(32 * 1024 ** 2, BYTE_STYLES.prose)).toBe('32 MiB');
  });

  it('the web viewer: KB and MB, kilobytes whole from 10', () => {
    expect(formatBytes(0, BYTE_STYLES.viewer)).toBe('0 B');
    expect(formatBytes(1023, BYTE_STYLES.viewer)).toBe('1023 B');
    expect(formatBytes(1024, BYTE_STYLES.viewer)).toBe('1.0 KB');
    expect(formatBytes(1536, BYTE_STYLES.viewer)).toBe('1.5 KB');
    expect(formatBytes(10 * 1024, BYTE_STYLES.viewer)).toBe('10 KB');
    expect(formatBytes(3.5 * 1024 ** 2, BYTE_STYLES.viewer)).toBe('3.5 MB');
    expect(formatBytes(2 * 1024 ** 3, BYTE_STYLES.viewer)).toBe('2048.0 MB');
  });

  it("a written file's size: kilobytes rounded up, then one decimal of MB", () => {
    expect(formatBytes(0, BYTE_STYLES.file)).toBe('0 KB');
    expect(formatBytes(100, BYTE_STYLES.file)).toBe('1 KB');
    expect(formatBytes(812.2 * 1024, BYTE_STYLES.file)).toBe('813 KB');
    expect(formatBytes(1024 ** 2, BYTE_STYLES.file)).toBe('1.0 MB');
    expect(formatBytes(25 * 1024 ** 2, BYTE_STYLES.file)).toBe('25.0 MB');
  });
});
