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
