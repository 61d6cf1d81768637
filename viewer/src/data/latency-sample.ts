/**
 * Which latencies a strip chart draws when a tool has more calls than dots fit. An even sample of the sorted values
 * keeps the shape of the distribution but loses its ends, and the end is what someone chasing a slow agent looks
 * for: so the fastest and the slowest call are always drawn, and so is every call beyond the upper fence of the
 * box-plot rule (Q3 + 1.5 × IQR) up to half the budget; the rest of the budget samples the body evenly.
 */

/**
 * Up to `max` values of `sorted` (ascending) to draw: the minimum, the maximum, the slowest outliers, and an even
 * sample of the rest, ascending. All of them when they fit.
 *
 * @example sampleLatencies([1, 2, 3, 4, 5, 6, 7, 8, 9, 84], 4) // → [1, 5, 9, 84]
 */
export function sampleLatencies(sorted: readonly number[], max: number): number[] {
  const n = sorted.length;
  if (n <= max) return [...sorted];
  if (max <= 0) return [];
  if (max === 1) return [sorted[n - 1]!];
  // The slowest calls first: outliers beyond the upper fence, at most half the budget (the max is one of them).
  const fence = upperFence(sorted);
  let tail = 1;
  while (tail < Math.floor(max / 2) && sorted[n - 1 - tail]! > fence) tail++;
  // The body, min included, evenly through what is left, ending just before the tail.
  const body = max - tail;
  const end = n - tail;
  const out: number[] = [];
  for (let i = 0; i < body; i++) {
    const at = body === 1 ? 0 : Math.round((i * (end - 1)) / (body - 1));
    out.push(sorted[at]!);
  }
  for (let i = end; i < n; i++) out.push(sorted[i]!);
  return out;
}

/** Q3 + 1.5 × IQR of sorted values (nearest-rank quartiles): values above it are outliers. */
export function upperFence(sorted: readonly number[]): number {
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  const q1 = q(0.25);
  const q3 = q(0.75);
  return q3 + 1.5 * (q3 - q1);
}
