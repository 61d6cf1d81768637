/**
 * Retention: traces whose last activity is older than `maxAgeMs` go, then the oldest traces go until the lines
 * of all traces together fit in `maxBytes`. Uploads in progress are never touched. Each engine applies it (see
 * CollectorStore.retain): SQLite hands freed pages back to the file system, so the database file shrinks too;
 * Postgres runs it on one collector at a time (an advisory lock), however many share the database.
 */
export interface RetentionPolicy {
  maxAgeMs?: number | undefined;
  maxBytes?: number | undefined;
}

export interface RetentionResult {
  removed: number;
  bytes: number;
}

/** A trace as retention sees it. */
export interface RetentionCandidate {
  n: number;
  id: string;
  bytes: number;
}

/** The oldest traces to drop, in order, until `excess` bytes are gone. */
export function oldestUntil(rows: Iterable<RetentionCandidate>, excess: number): RetentionCandidate[] {
  const doomed: RetentionCandidate[] = [];
  let left = excess;
  for (const row of rows) {
    if (left <= 0) break;
    doomed.push(row);
    left -= row.bytes;
  }
  return doomed;
}
