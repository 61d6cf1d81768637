/**
 * A longest common subsequence of two sequences of keys, for lining up two traces request by request.
 *
 * Myers' O((N+M)·D) algorithm in linear space: find a point that an optimal edit path crosses, by walking furthest-
 * reaching paths from both corners at once until they meet, then solve the two halves the same way. Memory is two
 * arrays of O(N+M) integers whatever D is (a full N×M table for two 10k-call traces would be 100M cells).
 *
 * Two things keep D small on real traces: keys found on one side only can never match, so they are taken out first
 * (that leaves the LCS unchanged), and common prefixes and suffixes are matched before any search. On very different
 * inputs a search that has spent `maxCost` steps settles for the furthest point it reached, so time stays bounded;
 * the result is then still a common subsequence, just not always a longest one.
 */

export interface CommonSubsequenceOptions {
  /** Steps one search may take before it settles for a good split rather than the best one. */
  maxCost: number;
}

export const LCS_DEFAULTS: CommonSubsequenceOptions = { maxCost: 1024 };

/**
 * Index pairs `[i, j]` with `a[i] === b[j]` (as Map keys compare), ascending in both i and j: a longest common
 * subsequence while the inputs differ in fewer than about 2·maxCost places.
 *
 * @example commonSubsequence(['a', 'b', 'c', 'd'], ['b', 'x', 'c', 'd', 'e']) // → [[1, 0], [2, 2], [3, 3]]
 */
export function commonSubsequence<K>(
  a: readonly K[],
  b: readonly K[],
  options: Partial<CommonSubsequenceOptions> = {},
): Array<[number, number]> {
  const { maxCost } = { ...LCS_DEFAULTS, ...options };
  // Keys as small integers; a key of `a` that `b` lacks (or the other way round) never takes part.
  const inA = new Set(a);
  const shared = new Map<K, number>();
  for (const key of b) if (inA.has(key) && !shared.has(key)) shared.set(key, shared.size);
  const [codesA, indexA] = keep(a, shared);
  const [codesB, indexB] = keep(b, shared);
  const pairs: Array<[number, number]> = [];
  if (codesA.length === 0 || codesB.length === 0) return pairs;
  const flat = new Search(codesA, codesB, Math.max(1, maxCost)).run();
  for (let p = 0; p < flat.length; p += 2)
    pairs.push([indexA[flat[p] as number] as number, indexB[flat[p + 1] as number] as number]);
  return pairs;
}

/** The codes of the items whose key both sides hold, and where each came from. */
function keep<K>(items: readonly K[], shared: ReadonlyMap<K, number>): [Int32Array, Int32Array] {
  const codes = new Int32Array(items.length);
  const index = new Int32Array(items.length);
  let n = 0;
  for (let i = 0; i < items.length; i++) {
    const code = shared.get(items[i] as K);
    if (code === undefined) continue;
    codes[n] = code;
    index[n++] = i;
  }
  return [codes.subarray(0, n), index.subarray(0, n)];
}

/** Unvisited diagonal. */
const NONE = -1;

class Search {
  /** Furthest x reached on each diagonal k (at `offset + k`): forward from the top left, backward from the end. */
  private readonly forward: Int32Array;
  private readonly backward: Int32Array;
  private readonly offset: number;

  constructor(
    private readonly a: Int32Array,
    private readonly b: Int32Array,
    private readonly maxCost: number,
  ) {
    const size = a.length + b.length;
    this.offset = size + 2;
    this.forward = new Int32Array(2 * size + 5);
    this.backward = new Int32Array(2 * size + 5);
  }

  /** Matched pairs as a flat sorted list `i0, j0, i1, j1 …`. */
  run(): number[] {
    const { a, b } = this;
    const out: number[] = [];
    // Ranges [a0, a1) × [b0, b1) still to solve; a stack, so deep splits never grow the call stack.
    const todo: number[] = [0, a.length, 0, b.length];
    while (todo.length > 0) {
      let b1 = todo.pop() as number;
      let b0 = todo.pop() as number;
      let a1 = todo.pop() as number;
      let a0 = todo.pop() as number;
      while (a0 < a1 && b0 < b1 && a[a0] === b[b0]) out.push(a0++, b0++);
      while (a0 < a1 && b0 < b1 && a[a1 - 1] === b[b1 - 1]) out.push(--a1, --b1);
      if (a0 === a1 || b0 === b1) continue;
      const split = this.split(a0, a1, b0, b1);
      if (split === undefined) continue;
      const [x, y] = split;
      todo.push(a0, x, b0, y, x, a1, y, b1);
    }
    // Sort the pairs by i (j follows, both ascend together).
    const order = Array.from({ length: out.length / 2 }, (_, p) => p);
    order.sort((p, q) => (out[2 * p] as number) - (out[2 * q] as number));
    const sorted: number[] = new Array(out.length);
    order.forEach((p, at) => {
      sorted[2 * at] = out[2 * p] as number;
      sorted[2 * at + 1] = out[2 * p + 1] as number;
    });
    return sorted;
  }

  /**
   * A point (x, y) an optimal path through [a0, a1) × [b0, b1) passes, strictly inside so both halves are smaller;
   * undefined when the range holds no match. Coordinates are absolute.
   */
  private split(a0: number, a1: number, b0: number, b1: number): [number, number] | undefined {
    const { a, b, forward: vf, backward: vb, offset } = this;
    const n = a1 - a0;
    const m = b1 - b0;
    const delta = n - m;
    const odd = (delta & 1) !== 0;
    const limit = Math.min(Math.ceil((n + m) / 2), this.maxCost);
    // Only diagonals within ±(limit + 1) are ever read or written.
    vf.fill(NONE, offset - limit - 2, offset + limit + 3);
    vb.fill(NONE, offset - limit - 2, offset + limit + 3);
    vf[offset + 1] = 0;
    vb[offset + 1] = 0;
    const visited = (k: number) => k >= -limit - 1 && k <= limit + 1;
    // Diagonals that ran off the grid are skipped from then on: [-d + low, d - high].
    let fLow = 0;
    let fHigh = 0;
    let bLow = 0;
    let bHigh = 0;
    for (let d = 0; d <= limit; d++) {
      for (let k = -d + fLow; k <= d - fHigh; k += 2) {
        const here = offset + k;
        let x =
          k === -d || (k !== d && (vf[here - 1] as number) < (vf[here + 1] as number))
            ? (vf[here + 1] as number)
            : (vf[here - 1] as number) + 1;
        let y = x - k;
        while (x < n && y < m && a[a0 + x] === b[b0 + y]) {
          x++;
          y++;
        }
        vf[here] = x;
        if (x > n) fHigh += 2;
        else if (y > m) fLow += 2;
        else if (odd && visited(delta - k)) {
          const back = vb[offset + delta - k] as number;
          // The backward walk on the same diagonal got to or past this point: the two paths meet.
          if (back !== NONE && x >= n - back) return this.inside(a0, b0, n, m, x, y);
        }
      }
      for (let k = -d + bLow; k <= d - bHigh; k += 2) {
        const here = offset + k;
        let x =
          k === -d || (k !== d && (vb[here - 1] as number) < (vb[here + 1] as number))
            ? (vb[here + 1] as number)
            : (vb[here - 1] as number) + 1;
        let y = x - k;
        while (x < n && y < m && a[a1 - 1 - x] === b[b1 - 1 - y]) {
          x++;
          y++;
        }
        vb[here] = x;
        if (x > n) bHigh += 2;
        else if (y > m) bLow += 2;
        else if (!odd && visited(delta - k)) {
          const front = vf[offset + delta - k] as number;
          // Split where the forward walk got to on that diagonal: along a diagonal the cost to the end never
          // grows, so that point is on an optimal path too.
          if (front !== NONE && front >= n - x) return this.inside(a0, b0, n, m, front, front - delta + k);
        }
      }
    }
    if (limit === Math.ceil((n + m) / 2)) return undefined;
    // Too costly to finish: the forward point furthest from the start.
    let best: [number, number] | undefined;
    for (let k = -limit; k <= limit; k++) {
      const x = vf[offset + k] as number;
      const y = x - k;
      if (x === NONE || x > n || y < 0 || y > m) continue;
      if (best === undefined || x + y > best[0] + best[1]) best = [x, y];
    }
    return best && this.inside(a0, b0, n, m, best[0], best[1]);
  }

  /** The split in absolute coordinates, or undefined when it would not make either half smaller. */
  private inside(
    a0: number,
    b0: number,
    n: number,
    m: number,
    x: number,
    y: number,
  ): [number, number] | undefined {
    if ((x === 0 && y === 0) || (x === n && y === m)) return undefined;
    return [a0 + x, b0 + y];
  }
}
