import { createHash, randomUUID } from 'node:crypto';
import type { IdentityKind, UserInfo } from './types.js';

/** Stands for "this process" when nothing else names the caller (a stdio server has one client: its parent). */
const PROCESS_ID = randomUUID();

/** Who made a request, as far as the recorder can tell; `key` never holds a credential. */
export interface Identity {
  kind: IdentityKind;
  key: string;
}

/** The facts the chain looks at after `getUser`. */
export interface IdentityFacts {
  /** The bearer token: from the SDK's authInfo or the Authorization header. Only its hash is kept. */
  token?: string | undefined;
  peerAddress?: string | undefined;
  userAgent?: string | undefined;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The identity chain: the user `getUser` named → the SHA-256 of the bearer token (the token itself never
 * leaves) → client address + user agent → a random id for this process.
 *
 * @example identityOf(undefined, { token: 'abc' }) // { kind: 'token', key: 'ba7816bf…' }
 */
export function identityOf(user: UserInfo | undefined, facts: IdentityFacts): Identity {
  if (user !== undefined) return { kind: 'user', key: user.id };
  if (facts.token !== undefined && facts.token !== '') return { kind: 'token', key: sha256(facts.token) };
  if (facts.peerAddress !== undefined) {
    return { kind: 'address', key: sha256(`${facts.peerAddress}\n${facts.userAgent ?? ''}`).slice(0, 32) };
  }
  return { kind: 'process', key: PROCESS_ID };
}

/** The credential of `Authorization: Bearer <token>`, if that is what the header holds. */
export function bearerToken(authorization: string | string[] | undefined): string | undefined {
  const value = Array.isArray(authorization) ? authorization[0] : authorization;
  if (value === undefined) return undefined;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(value);
  return match?.[1];
}

/**
 * Checks what `getUser` returned: a user needs a non-empty string id. Returns the clean user (known fields only)
 * or a reason to ignore it.
 */
export function checkUser(value: unknown): { user: UserInfo } | { problem: string } | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object') return { problem: `getUser returned ${typeof value}; expected { id, … }` };
  const { id, name, email, traits } = value as Record<string, unknown>;
  if (typeof id !== 'string' || id === '') {
    return { problem: 'getUser returned a user without an id; such users are ignored' };
  }
  const user: UserInfo = { id };
  if (typeof name === 'string') user.name = name;
  if (typeof email === 'string') user.email = email;
  if (typeof traits === 'object' && traits !== null && !Array.isArray(traits)) {
    user.traits = traits as UserInfo['traits'] & object;
  }
  return { user };
}
