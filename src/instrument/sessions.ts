import { createHash, randomUUID } from 'node:crypto';
import type { Implementation } from './types.js';

interface Session {
  id: string;
  lastMs: number;
  split: string | undefined;
}

/**
 * Groups requests into sessions: one per identity and client (name, version), ending after `idleMs` without a
 * request. A `split` (what `getSessionId` returned) divides further; it never merges what identity keeps apart —
 * the same split value under two identities gives two sessions (the second one's id gets a suffix).
 */
export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  /** Which key first used a split value as its session id. */
  private readonly splitOwners = new Map<string, string>();
  /** The client each identity last named, for requests that name none (stateless HTTP: no initialize). */
  private readonly clients = new Map<string, { client: Implementation; lastMs: number }>();

  constructor(
    private readonly idleMs: number,
    private readonly ended: (sessionId: string) => void,
  ) {}

  /**
   * The client `identityKey` last named within the idle time, for a request whose connection never said (a
   * stateless HTTP server makes a new connection per request, and only the first one carries `initialize`).
   */
  recallClient(identityKey: string, atMs: number): Implementation | undefined {
    const known = this.clients.get(identityKey);
    return known !== undefined && atMs - known.lastMs <= this.idleMs ? known.client : undefined;
  }

  /** The session id of a request made at `atMs`. */
  resolve(
    identityKey: string,
    client: Implementation | undefined,
    split: string | undefined,
    atMs: number,
  ): string {
    if (client !== undefined) {
      const known = this.clients.get(identityKey);
      if (known?.client === client) known.lastMs = Math.max(known.lastMs, atMs);
      else this.clients.set(identityKey, { client, lastMs: atMs });
    }
    const key = this.keyOf(identityKey, client, split);
    const current = this.sessions.get(key);
    if (current !== undefined) {
      if (atMs - current.lastMs <= this.idleMs) {
        current.lastMs = Math.max(current.lastMs, atMs);
        return current.id;
      }
      this.end(key, current);
    }
    const session = { id: this.newId(key, split), lastMs: atMs, split };
    this.sessions.set(key, session);
    return session.id;
  }

  /** Ends sessions idle at `nowMs`; returns how many ended. */
  sweep(nowMs: number): number {
    let count = 0;
    for (const [key, session] of this.sessions) {
      if (nowMs - session.lastMs <= this.idleMs) continue;
      this.end(key, session);
      count += 1;
    }
    for (const [identityKey, known] of this.clients) {
      if (nowMs - known.lastMs > this.idleMs) this.clients.delete(identityKey);
    }
    return count;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** The last key built: consecutive requests mostly come from one session, so building it again is skipped. */
  private last: {
    identityKey: string;
    client: Implementation | undefined;
    split: string | undefined;
    key: string;
  } = { identityKey: '', client: undefined, split: undefined, key: '' };

  private keyOf(identityKey: string, client: Implementation | undefined, split: string | undefined): string {
    const last = this.last;
    if (
      last.key !== '' &&
      last.identityKey === identityKey &&
      last.client === client &&
      last.split === split
    ) {
      return last.key;
    }
    // NUL keeps `a|b` + `c` apart from `a` + `b|c`.
    const key = `${identityKey}\u0000${client?.name ?? ''}\u0000${client?.version ?? ''}\u0000${split ?? ''}`;
    this.last = { identityKey, client, split, key };
    return key;
  }

  private end(key: string, session: Session): void {
    this.sessions.delete(key);
    if (session.split !== undefined && this.splitOwners.get(session.split) === key) {
      this.splitOwners.delete(session.split);
    }
    this.ended(session.id);
  }

  private newId(key: string, split: string | undefined): string {
    if (split === undefined) return randomUUID();
    const owner = this.splitOwners.get(split);
    if (owner === undefined) {
      this.splitOwners.set(split, key);
      return split;
    }
    if (owner === key) return split;
    return `${split}~${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;
  }
}
