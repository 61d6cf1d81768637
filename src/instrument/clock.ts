/** Epoch ms of a performance.now() reading. */
export function epochMs(hr: number): number {
  return performance.timeOrigin + hr;
}

let second = Number.NaN;
let prefix = '';

/**
 * ISO-8601 UTC with milliseconds, like Date#toISOString, formatting a whole date only once per second (events
 * come in bursts; formatting is the costly part of a timestamp).
 *
 * @example isoTime(Date.UTC(2026, 0, 2, 3, 4, 5, 67)) // '2026-01-02T03:04:05.067Z'
 */
export function isoTime(ms: number): string {
  const whole = Math.floor(ms);
  const s = Math.floor(whole / 1000);
  if (s !== second) {
    second = s;
    prefix = new Date(s * 1000).toISOString().slice(0, 20);
  }
  const millis = whole - s * 1000;
  return `${prefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}
