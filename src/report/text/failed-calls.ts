import { idTag } from '../../trace/describe.js';
import { callFailed, type Exchange, type PairEvent } from '../../trace/exchange.js';

/** A request waiting for its answer, with the failed calls the wire ties to it that wait on its outcome. */
interface Open {
  request: PairEvent;
  /** The events of failed calls under it, in the order they would have printed. */
  held: PairEvent[];
  /** Their ids: listed on their own if this call does not fail, folded into it if it does. */
  heldIds: string[];
}

/**
 * The failing calls of a stream of pairing events, for `show --errors`: a request is held until its answer says
 * whether it failed (memory: the requests still open), then handed on with its answer, or dropped. A failed call
 * the wire ties to a call still open (a refused sampling request on a tool call's stream) waits for that call: if it
 * fails too, both print as one failing call under its id (see failingCall); if not, the child prints as its own. The
 * trace's header comes through; every other line does not. `ids` lists the failed calls in the order their answers
 * came.
 *
 * @example const failed = new FailedCalls(); for (const ev of events) for (const e of failed.push(ev)) print(e);
 */
export class FailedCalls {
  readonly ids: string[] = [];
  private readonly open = new Map<Exchange, Open>();

  push(ev: PairEvent): PairEvent[] {
    switch (ev.kind) {
      case 'line':
        return ev.line.type === 'meta' ? [ev] : [];
      case 'request':
        this.open.set(ev.exchange, { request: ev, held: [], heldIds: [] });
        return [];
      case 'response':
        return this.answered(ev.exchange, ev);
      case 'unanswered':
        return this.release(ev.exchange);
      default:
        return [];
    }
  }

  /** The closing line: `failed: #2 #7`, or `failed: none`. */
  summary(): string {
    return `failed: ${this.ids.length === 0 ? 'none' : this.ids.join(' ')}`;
  }

  private answered(exchange: Exchange, response: PairEvent): PairEvent[] {
    if (!callFailed(exchange)) return this.release(exchange);
    const entry = this.open.get(exchange);
    this.open.delete(exchange);
    const bundle = entry ? [entry.request, ...entry.held, response] : [response];
    const parent = exchange.guessed ? undefined : exchange.parent;
    const waiting = parent ? this.open.get(parent) : undefined;
    if (waiting) {
      waiting.held.push(...bundle);
      waiting.heldIds.push(idTag(exchange.id));
      return [];
    }
    // Under a call that already failed, it is part of that call's failure, listed already.
    if (parent === undefined || !callFailed(parent)) this.ids.push(idTag(exchange.id));
    return bundle;
  }

  /** A call that did not fail (or never answered): the failed calls held under it print as their own. */
  private release(exchange: Exchange): PairEvent[] {
    const entry = this.open.get(exchange);
    this.open.delete(exchange);
    if (!entry || entry.held.length === 0) return [];
    this.ids.push(...entry.heldIds);
    return entry.held;
  }
}
