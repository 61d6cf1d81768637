import { randomBytes } from 'node:crypto';
import type { TraceRow, TraceStore } from './store.js';

/**
 * Read-only share links: a capability for one trace. The id is 24 random bytes (192 bits, base64url), so it
 * cannot be guessed; holding it lets a person read that trace and nothing else, until it expires or is revoked.
 */

export const SHARE_ID = /^[A-Za-z0-9_-]{32}$/;

export interface ShareRow {
  id: string;
  trace: number;
  created_ms: number;
  expires_ms: number;
  revoked_ms: number | null;
}

/** A share as the API describes it. */
export interface ShareInfo {
  id: string;
  traceId: string;
  createdAt: string;
  expiresAt: string;
  revoked: boolean;
}

export function createShare(store: TraceStore, trace: TraceRow, ttlMs: number, now: number): ShareRow {
  const id = randomBytes(24).toString('base64url');
  store
    .stmt('share-create', 'INSERT INTO shares (id, trace, created_ms, expires_ms) VALUES (?, ?, ?, ?)')
    .run(id, trace.n, now, now + ttlMs);
  return { id, trace: trace.n, created_ms: now, expires_ms: now + ttlMs, revoked_ms: null };
}

/** The trace a share opens: `missing` (never existed or its trace is gone), `expired`, `revoked` or the trace. */
export function resolveShare(
  store: TraceStore,
  id: string,
  now: number,
): { kind: 'missing' | 'expired' | 'revoked' } | { kind: 'ok'; share: ShareRow; trace: TraceRow } {
  const share = store.stmt('share-get', 'SELECT * FROM shares WHERE id = ?').get(id) as ShareRow | undefined;
  if (share === undefined) return { kind: 'missing' };
  if (share.revoked_ms !== null) return { kind: 'revoked' };
  if (share.expires_ms <= now) return { kind: 'expired' };
  const trace = store.stmt('trace-by-n', 'SELECT * FROM traces WHERE n = ?').get(share.trace) as
    | TraceRow
    | undefined;
  return trace === undefined ? { kind: 'missing' } : { kind: 'ok', share, trace };
}

/** Revokes a share; false when there is no such share. */
export function revokeShare(store: TraceStore, id: string, now: number): boolean {
  const result = store
    .stmt('share-revoke', 'UPDATE shares SET revoked_ms = coalesce(revoked_ms, ?) WHERE id = ?')
    .run(now, id);
  return result.changes > 0;
}

export function listShares(store: TraceStore, trace: TraceRow): ShareInfo[] {
  const rows = store
    .stmt('share-list', 'SELECT * FROM shares WHERE trace = ? ORDER BY created_ms')
    .all(trace.n) as ShareRow[];
  return rows.map((row) => shareInfo(row, trace.id));
}

/** Every share of every stored trace, oldest first (a deleted trace's shares went with it). */
export function listAllShares(store: TraceStore): ShareInfo[] {
  const rows = store
    .stmt(
      'share-list-all',
      'SELECT shares.*, traces.id AS trace_id FROM shares JOIN traces ON traces.n = shares.trace ORDER BY shares.created_ms, shares.id',
    )
    .all() as (ShareRow & { trace_id: string })[];
  return rows.map((row) => shareInfo(row, row.trace_id));
}

export function shareInfo(row: ShareRow, traceId: string): ShareInfo {
  return {
    id: row.id,
    traceId,
    createdAt: new Date(row.created_ms).toISOString(),
    expiresAt: new Date(row.expires_ms).toISOString(),
    revoked: row.revoked_ms !== null,
  };
}
