// The tables pairing finds open requests in: by scope (server + connection), direction and id.

import type { Exchange } from './exchange.js';
import type { RpcId } from './jsonrpc.js';
import type { Direction } from './types.js';

/**
 * Values by scope, direction and id (or progress token). Ids are Map keys as they are — a Map keeps `1` and `"1"`
 * apart — so finding one builds no key text.
 */
export class IdTable<V> {
  private readonly scopes = new Map<string, { in: Map<RpcId, V>; out: Map<RpcId, V> }>();

  get(scope: string, dir: Direction, id: RpcId): V | undefined {
    return this.scopes.get(scope)?.[dir].get(id);
  }

  /** The map of one scope and direction, made on first use. */
  ids(scope: string, dir: Direction): Map<RpcId, V> {
    let both = this.scopes.get(scope);
    if (both === undefined) {
      both = { in: new Map(), out: new Map() };
      this.scopes.set(scope, both);
    }
    return both[dir];
  }

  *values(): Generator<V> {
    for (const both of this.scopes.values()) {
      yield* both.in.values();
      yield* both.out.values();
    }
  }
}

/** Emptied queues an {@link IdQueues} holds before it sweeps them out (when they outnumber the live ones too). */
const SWEEP_AT = 256;

/**
 * The open exchanges of one scope and direction, a queue per id (in case a peer reuses an id before it was
 * answered). An answered id's queue is emptied, not deleted: ids come and go at every message, and deleting each
 * from a Map costs many times what setting it did (the Map shrinks its table again and again). Emptied queues are
 * swept out once there are more of them than live ones, and at least SWEEP_AT: memory stays proportional to the
 * open requests.
 */
class IdQueues {
  map = new Map<RpcId, Exchange[]>();
  private emptied = 0;

  add(id: RpcId, exchange: Exchange): void {
    const queue = this.map.get(id);
    if (queue === undefined) this.map.set(id, [exchange]);
    else {
      if (queue.length === 0) this.emptied--;
      queue.push(exchange);
    }
  }

  /** Removes `exchange` from its id's queue. */
  remove(id: RpcId, exchange: Exchange): void {
    const queue = this.map.get(id);
    if (queue === undefined) return;
    const last = queue.length - 1;
    if (queue[last] === exchange) queue.pop();
    else {
      const at = queue.lastIndexOf(exchange);
      if (at < 0) return;
      queue.splice(at, 1);
    }
    if (queue.length > 0) return;
    this.emptied++;
    if (this.emptied >= SWEEP_AT && this.emptied * 2 > this.map.size) {
      const live = new Map<RpcId, Exchange[]>();
      for (const [key, open] of this.map) if (open.length > 0) live.set(key, open);
      this.map = live;
      this.emptied = 0;
    }
  }
}

/** {@link IdQueues} by scope and direction. */
export class QueueTable {
  private readonly scopes = new Map<string, { in: IdQueues; out: IdQueues }>();

  /** The open exchanges of an id, oldest first (possibly none). */
  get(scope: string, dir: Direction, id: RpcId): Exchange[] | undefined {
    return this.scopes.get(scope)?.[dir].map.get(id);
  }

  /** The queues of one scope and direction, made on first use. */
  queues(scope: string, dir: Direction): IdQueues {
    let both = this.scopes.get(scope);
    if (both === undefined) {
      both = { in: new IdQueues(), out: new IdQueues() };
      this.scopes.set(scope, both);
    }
    return both[dir];
  }

  *values(): Generator<Exchange[]> {
    for (const both of this.scopes.values()) {
      yield* both.in.map.values();
      yield* both.out.map.values();
    }
  }
}
