/**
 * An error rate as a colour strength, so a table of tools reads at a glance: one failure in a thousand calls is a
 * faint tint, every call failing is full red. The scale is logarithmic (0.1 % → 0, 1 % → ⅓, 10 % → ⅔, 100 % → 1)
 * because the rates worth telling apart span orders of magnitude.
 */

/**
 * 0 for no errors, else 0.1..1 by the rate's order of magnitude (never 0 once something failed).
 *
 * @example errorShade(1, 1000) // → 0.1
 * @example errorShade(1, 10)   // → 0.667
 */
export function errorShade(errors: number, calls: number): number {
  if (errors <= 0 || calls <= 0) return 0;
  const rate = Math.min(1, errors / calls);
  const shade = (Math.log10(rate) + 3) / 3;
  return Math.round(Math.max(0.1, Math.min(1, shade)) * 1000) / 1000;
}

/**
 * The rate as text: whole percents, one decimal below 10 %, `<0.1%` for the rarest failures (never `0.0%`).
 *
 * @example formatRate(1, 2000) // → '<0.1%'
 * @example formatRate(1, 40)   // → '2.5%'
 */
export function formatRate(errors: number, calls: number): string {
  if (calls <= 0 || errors <= 0) return '0%';
  const percent = (errors / calls) * 100;
  if (percent < 0.1) return '<0.1%';
  return `${percent.toFixed(percent < 10 ? 1 : 0)}%`;
}
