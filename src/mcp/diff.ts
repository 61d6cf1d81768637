import type { CassetteExchange } from '../replay/cassette.js';
import { createNormalizer, DEFAULT_NORMALIZATION } from '../replay/normalize.js';
import { type DiffEntry, structuralDiff } from '../trace/json-diff.js';
import { toolName } from '../trace/jsonrpc.js';
import { alignNamedLists, answerOutcome } from '../trace/outcome.js';
import type { LoadedTrajectory } from './loaded.js';

/**
 * `diff_trajectories`: two trajectories lined up request by request (by matching key — method and normalized
 * params, as replay matches), then the answers to the requests both hold compared as `verify` compares them (result
 * or error, drift left out, named lists lined up by name).
 */

export interface DiffChange {
  kind: 'only_in_a' | 'only_in_b' | 'answer_differs';
  /** 1-based event positions in a and b. */
  a?: number;
  b?: number;
  method: string;
  tool?: string;
  differences?: DiffEntry[];
  /** How many differences there are in all (only the first few are listed). */
  total?: number;
}

export interface TrajectoryDiff {
  a: string;
  b: string;
  events: { a: number; b: number };
  /** Requests both hold whose answers agree. */
  same: number;
  changes: DiffChange[];
}

/** Beyond this many cells the lining up is position by position (two 2,000-event trajectories still line up). */
const MAX_TABLE = 4_000_000;

/**
 * @example diffTrajectories(await cache.load(store.locate('before')), await cache.load(store.locate('after'))).changes
 */
export function diffTrajectories(a: LoadedTrajectory, b: LoadedTrajectory): TrajectoryDiff {
  const normalizer = createNormalizer();
  const keyOf = (x: CassetteExchange) => normalizer.key(normalizer.normalize(x.method, x.request.params));
  const left = a.cassette.exchanges;
  const right = b.cassette.exchanges;
  const pairs = lineUp(left.map(keyOf), right.map(keyOf));
  const out: TrajectoryDiff = {
    a: a.file.name,
    b: b.file.name,
    events: { a: left.length, b: right.length },
    same: 0,
    changes: [],
  };
  let i = 0;
  let j = 0;
  const only = (kind: 'only_in_a' | 'only_in_b', x: CassetteExchange) => {
    const change: DiffChange = { kind, method: x.method, [kind === 'only_in_a' ? 'a' : 'b']: x.ordinal + 1 };
    const tool = toolName(x.request);
    if (tool !== undefined) change.tool = tool;
    out.changes.push(change);
  };
  for (const [pi, pj] of [...pairs, [left.length, right.length] as const]) {
    while (i < pi) only('only_in_a', left[i++]!);
    while (j < pj) only('only_in_b', right[j++]!);
    if (pi === left.length && pj === right.length) break;
    const x = left[i++]!;
    const y = right[j++]!;
    const [ra, rb] = alignNamedLists(outcome(x), outcome(y));
    const diff = structuralDiff(ra, rb, '$', { maxEntries: 10 });
    if (diff.total === 0) {
      out.same++;
      continue;
    }
    const change: DiffChange = {
      kind: 'answer_differs',
      a: x.ordinal + 1,
      b: y.ordinal + 1,
      method: x.method,
      differences: diff.entries.map(({ path, recorded, live }) => ({
        path,
        ...(recorded !== undefined ? { a: recorded } : {}),
        ...(live !== undefined ? { b: live } : {}),
      })) as DiffEntry[],
      total: diff.total,
    };
    const tool = toolName(x.request);
    if (tool !== undefined) change.tool = tool;
    out.changes.push(change);
  }
  return out;
}

function outcome(x: CassetteExchange) {
  return x.response === undefined ? undefined : answerOutcome(x.response, DEFAULT_NORMALIZATION);
}

/** Index pairs of a longest common subsequence of the keys (position by position when the table would be huge). */
function lineUp(a: readonly string[], b: readonly string[]): [number, number][] {
  if (a.length * b.length > MAX_TABLE) {
    const pairs: [number, number][] = [];
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] === b[i]) pairs.push([i, i]);
    return pairs;
  }
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      table[i * width + j] =
        a[i] === b[j]
          ? table[(i + 1) * width + j + 1]! + 1
          : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) pairs.push([i++, j++]);
    else if (table[(i + 1) * width + j]! >= table[i * width + j + 1]!) i++;
    else j++;
  }
  return pairs;
}
