import { createHash, randomBytes } from 'node:crypto';

/**
 * Team tokens: kept in the store, so every collector on a shared database knows them. A `write` token may also
 * read. Only a hash of the secret is stored; the secret is shown once, when the token is made.
 */

export type TokenScope = 'read' | 'write';

/** A token as listed: never its secret. */
export interface TokenInfo {
  id: string;
  scope: TokenScope;
  label: string;
  createdAt: string;
  revokedAt: string | null;
}

/** A stored token row. */
export interface TokenRow {
  id: string;
  scope: TokenScope;
  label: string;
  hash: string;
  created_ms: number;
  revoked_ms: number | null;
}

/** Token ids: `tok_` and 12 characters of base64url. */
export const TOKEN_ID = /^tok_[A-Za-z0-9_-]{12}$/;

/** A new token's id and secret; the secret starts with `tdk_` so a secret scanner can tell it. */
export function mintToken(): { id: string; secret: string } {
  return {
    id: `tok_${randomBytes(9).toString('base64url')}`,
    secret: `tdk_${randomBytes(32).toString('base64url')}`,
  };
}

/** The hash stored for a secret. */
export function tokenHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function tokenInfo(row: TokenRow): TokenInfo {
  return {
    id: row.id,
    scope: row.scope,
    label: row.label,
    createdAt: new Date(row.created_ms).toISOString(),
    revokedAt: row.revoked_ms === null ? null : new Date(row.revoked_ms).toISOString(),
  };
}
