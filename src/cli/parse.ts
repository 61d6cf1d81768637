import { parseDuration } from '../base/units.js';
import { usageError } from './errors.js';

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
};

/**
 * Parses a byte size such as `52428800`, `50MB`, `16m` or `512k` (binary units). Throws a usage error naming
 * the flag and the value otherwise.
 *
 * @example parseByteSize('--max-bytes', '50MB') === 52428800
 */
export function parseByteSize(flag: string, value: string): number {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(value.trim());
  const unit = match ? UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined || Number(match[1]) <= 0) {
    throw usageError(
      `${flag} must be a positive size in bytes such as 52428800, 50MB or 512KB; got '${value}'`,
    );
  }
  return Number(match[1]) * unit;
}

/** Parses a positive whole number. @example parsePositiveInt('--max-files', '4') === 4 */
export function parsePositiveInt(flag: string, value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) {
    throw usageError(`${flag} must be a whole number of at least 1; got '${value}'`);
  }
  return Number(value);
}

/**
 * Parses a duration such as `30d`, `12h`, `1.5m` or `500ms` (src/base/units.ts has the grammar). Throws a usage error
 * naming the flag and the value otherwise.
 *
 * @example parseDurationFlag('--max-age', '30d') === 2_592_000_000
 */
export function parseDurationFlag(flag: string, value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined) {
    throw usageError(
      `${flag} must be a duration such as 30d, 12h, 90m, 45s, 2w or 500ms (units ms, s, m, h, d, w); got '${value}'`,
    );
  }
  return ms;
}

/** The longest a Node timer waits: a later deadline fires at once (with a warning), so no time limit goes past it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Parses a time limit (`--timeout`, `--client-timeout`): a duration in the one grammar (`5s`, `1.5m`, `500ms`;
 * src/base/units.ts), or a bare whole number of milliseconds, as these flags took before they took units. At least 1 ms,
 * at most the longest a timer can wait (about 24 days). Throws a usage error naming the flag and the value
 * otherwise.
 *
 * @example parseTimeLimitFlag('--timeout', '5s') === 5000
 * @example parseTimeLimitFlag('--timeout', '1500') === 1500
 */
export function parseTimeLimitFlag(flag: string, value: string): number {
  const text = value.trim();
  const ms = /^\d+$/.test(text) ? Number(text) : parseDuration(text);
  if (ms === undefined || ms < 1) {
    throw usageError(
      `${flag} must be a duration such as 5s, 1.5m or 500ms, or a whole number of milliseconds; got '${value}'`,
    );
  }
  if (ms > MAX_TIMER_MS) {
    throw usageError(
      `${flag} can be at most 24d (${MAX_TIMER_MS} ms), the longest a timer waits; got '${value}'`,
    );
  }
  return ms;
}
