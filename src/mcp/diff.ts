import { type AlignedItem, type AlignSummary, alignTraces, type ValueChange } from '../trace/align.js';
import type { TraceLine } from '../trace/types.js';
import type { LoadedTrajectory } from './loaded.js';

/**
 * `diff_trajectories`: two trajectories lined up request by request as `tapedeck diff` lines up traces (alignTraces:
 * requests keyed as replay matches them, answers compared under the same normalization), reported as the items that
 * differ.
 */

export interface DiffChange {
  kind: 'changed' | 'added' | 'removed';
  /** 1-based event positions in a and b (absent on the side that lacks the request). */
  a?: number;
  b?: number;
  method: string;
  /** Tool name, resource uri or prompt name. */
  target?: string;
  /** How the requests differ (a changed argument), JSON paths with each side's value. */
  params?: { entries: ValueChange[]; total: number };
  /** How the answers differ. */
  result?: { entries: ValueChange[]; total: number };
}

export interface TrajectoryDiff {
  a: string;
  b: string;
  summary: AlignSummary;
  changes: DiffChange[];
}

/**
 * @example diffTrajectories(await cache.load(store.locate('before')), await cache.load(store.locate('after'))).summary
 * // → { same: 4, changed: 1, added: 0, removed: 1, requests: { a: 6, b: 5 }, latencyDeltaMs: 3, identical: false }
 */
export function diffTrajectories(a: LoadedTrajectory, b: LoadedTrajectory): TrajectoryDiff {
  const { items, summary } = alignTraces(linesOf(a), linesOf(b), { labels: [a.file.name, b.file.name] });
  return {
    a: a.file.name,
    b: b.file.name,
    summary,
    changes: items.filter((item) => item.kind !== 'same').map(change),
  };
}

function linesOf(loaded: LoadedTrajectory): TraceLine[] {
  return [loaded.meta, ...loaded.entries.map((entry) => entry.line)];
}

function change(item: AlignedItem): DiffChange {
  const out: DiffChange = { kind: item.kind as DiffChange['kind'], method: item.method };
  if (item.aIndex !== undefined) out.a = item.aIndex + 1;
  if (item.bIndex !== undefined) out.b = item.bIndex + 1;
  if (item.target !== undefined) out.target = item.target;
  if (item.params !== undefined) out.params = item.params;
  if (item.result !== undefined) out.result = item.result;
  return out;
}
