import { type ScannedLine, scanSpan } from './line-scan.js';

// Reading trace times fast: pairing turns the `t` of every line of a trace into epoch ms.

/** The last whole second parsed: trace times come in order, so most lines share theirs with the line before. */
let lastSecond = '';
let lastSecondMs = Number.NaN;

/**
 * A trace line's `t` in epoch ms, or undefined when it is absent or not a time.
 *
 * @example parseTime('2026-01-01T00:00:00.123Z') // → 1767225600123
 */
export function parseTime(t: unknown): number | undefined {
  if (typeof t !== 'string') return undefined;
  // `2026-01-01T00:00:00.123Z`, as tapedeck writes it: parse the second once, then add the milliseconds.
  if (t.length === 24 && t.charCodeAt(19) === 46 && t.charCodeAt(23) === 90) {
    const ms = digit(t, 20) * 100 + digit(t, 21) * 10 + digit(t, 22);
    if (ms >= 0) {
      if (!t.startsWith(lastSecond) || lastSecond === '') {
        lastSecond = t.slice(0, 19);
        lastSecondMs = Date.parse(`${lastSecond}Z`);
      }
      if (!Number.isNaN(lastSecondMs)) return lastSecondMs + ms;
    }
  }
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The decimal digit at `at`, or a large negative number when it is not one. */
function digit(text: string, at: number): number {
  const code = text.charCodeAt(at) - 48;
  return code >= 0 && code <= 9 ? code : -1000;
}

/**
 * A message line read from bytes whose `t` was written as tapedeck writes times (`2026-01-01T00:00:00.123Z`, a
 * real date): it holds the time as epoch ms and makes the text only when `t` is asked for. Statistics over a
 * million lines read the times of all of them and the text of two.
 */
export class TimedLine {
  /** `t` in epoch ms. */
  readonly time: number;

  constructor(time: number) {
    this.time = time;
  }

  /** The time as it was written: for such a time, its ISO text is the text of the line. */
  get t(): string {
    return new Date(this.time).toISOString();
  }
}

/**
 * A line's `t` in epoch ms (see {@link parseTime}), without making its text when a reader already has the number.
 *
 * @example lineTime({ t: '2026-01-01T00:00:00.123Z' }) // → 1767225600123
 */
export function lineTime(line: { t?: unknown }): number | undefined {
  return line instanceof TimedLine ? line.time : parseTime(line.t);
}

/**
 * Epoch ms of a time written `YYYY-MM-DDTHH:MM:SS.mmmZ` in bytes [at, at + 24), or -1 when the bytes are anything
 * else: another form, or a date that does not exist (those are left to the ordinary parse). A time that passes
 * is one whose `toISOString()` gives back the same 24 characters.
 *
 * @example isoTimeAt(new TextEncoder().encode('1970-01-01T00:00:01.500Z'), 0) // → 1500
 */
export function isoTimeAt(b: Uint8Array, at: number): number {
  if (at < 0 || at + 24 > b.length) return -1;
  if (b[at + 4] !== 45 || b[at + 7] !== 45 || b[at + 10] !== 84 || b[at + 13] !== 58) return -1;
  if (b[at + 16] !== 58 || b[at + 19] !== 46 || b[at + 23] !== 90) return -1;
  const year = two(b, at) * 100 + two(b, at + 2);
  const month = two(b, at + 5);
  const day = two(b, at + 8);
  const hour = two(b, at + 11);
  const minute = two(b, at + 14);
  const second = two(b, at + 17);
  const last = b[at + 22]! - 48;
  const ms = last >= 0 && last <= 9 ? two(b, at + 20) * 10 + last : -1;
  if ((year | month | day | hour | minute | second | ms) < 0) return -1;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return -1;
  if (hour > 23 || minute > 59 || second > 59) return -1;
  return (((daysFromEpoch(year, month, day) * 24 + hour) * 60 + minute) * 60 + second) * 1000 + ms;
}

/** The two-digit number at `at` (in bounds), or a large negative number when either is not a digit. */
function two(b: Uint8Array, at: number): number {
  const hi = b[at]! - 48;
  const lo = b[at + 1]! - 48;
  return hi >= 0 && hi <= 9 && lo >= 0 && lo <= 9 ? hi * 10 + lo : -100000;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (years 0 to 9999). */
function daysFromEpoch(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/**
 * The byte scanner's read of the line at `start` (see scanSpan) for a reader that pairs and counts: a `t` written
 * as tapedeck writes times is read as a number, the line then being a {@link TimedLine}.
 *
 * @example scanTimedSpan(chunk, 0, chunk.length)?.line.t // → '2026-01-01T00:00:00.000Z'
 */
export function scanTimedSpan(bytes: Uint8Array, start: number, end: number): ScannedLine | undefined {
  return scanSpan(bytes, start, end, stampTime);
}

/** `"t":"` in bytes. */
const TIME_KEY = [34, 116, 34, 58, 34];

/** A TimedLine for a line that starts with `"t":"` and a time written as tapedeck writes them (see Stamp). */
function stampTime(bytes: Uint8Array, at: number): Record<string, unknown> | undefined {
  for (let j = 0; j < 5; j++) if (bytes[at + j] !== TIME_KEY[j]) return undefined;
  if (bytes[at + 29] !== 34) return undefined;
  const time = isoTimeAt(bytes, at + 5);
  return time < 0 ? undefined : (new TimedLine(time) as unknown as Record<string, unknown>);
}
