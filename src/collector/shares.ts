import { randomBytes } from 'node:crypto';

/**
 * Read-only share links: a capability for one trace. The id is 24 random bytes (192 bits, base64url), so it
 * cannot be guessed; holding it lets a person read that trace and nothing else, until it expires or is revoked.
 * The store keeps them (CollectorStore), so a link made on one collector opens on every collector of its database.
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

/** A new share row for trace `n`, valid `ttlMs` from `now`. */
export function newShare(n: number, ttlMs: number, now: number): ShareRow {
  return {
    id: randomBytes(24).toString('base64url'),
    trace: n,
    created_ms: now,
    expires_ms: now + ttlMs,
    revoked_ms: null,
  };
}

/** What a share row says of itself at `now`. */
export function shareState(share: ShareRow, now: number): 'revoked' | 'expired' | 'ok' {
  if (share.revoked_ms !== null) return 'revoked';
  return share.expires_ms <= now ? 'expired' : 'ok';
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
