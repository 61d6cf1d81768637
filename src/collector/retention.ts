import type { TraceRow, TraceStore } from './store.js';

/**
 * Retention: traces whose last activity is older than `maxAgeMs` go, then the oldest traces go until the lines
 * of all traces together fit in `maxBytes`. Uploads in progress are never touched. Freed pages are handed back
 * to the file system (incremental vacuum), so the database file shrinks too.
 */
export interface RetentionResult {
  removed: number;
  bytes: number;
}

export function applyRetention(
  store: TraceStore,
  policy: { maxAgeMs?: number | undefined; maxBytes?: number | undefined },
  now: number,
): RetentionResult {
  const result: RetentionResult = { removed: 0, bytes: 0 };
  const drop = (row: TraceRow) => {
    store.remove(row);
    result.removed += 1;
    result.bytes += row.bytes;
  };
  if (policy.maxAgeMs !== undefined) {
    const old = store
      .stmt(
        'retain-age',
        `SELECT n, id, bytes FROM traces WHERE state != 'uploading' AND updated_ms < ? ORDER BY n`,
      )
      .all(now - policy.maxAgeMs) as TraceRow[];
    for (const row of old) drop(row);
  }
  if (policy.maxBytes !== undefined) {
    const total = () =>
      (
        store.stmt('retain-total', 'SELECT coalesce(sum(bytes), 0) AS total FROM traces').get() as {
          total: number;
        }
      ).total;
    let excess = total() - policy.maxBytes;
    if (excess > 0) {
      const oldest = store
        .stmt('retain-oldest', `SELECT n, id, bytes FROM traces WHERE state != 'uploading' ORDER BY n`)
        .iterate() as IterableIterator<TraceRow>;
      const doomed: TraceRow[] = [];
      for (const row of oldest) {
        if (excess <= 0) break;
        doomed.push(row);
        excess -= row.bytes;
      }
      for (const row of doomed) drop(row);
    }
  }
  if (result.removed > 0) store.db.pragma('incremental_vacuum');
  return result;
}
