import { idTag } from '../../trace/describe.js';
import type { Exchange, PairEvent } from '../../trace/exchange.js';

/** Whether a call failed: answered with a JSON-RPC error, or a tool result flagged `isError`. */
export function callFailed(exchange: Exchange): boolean {
  return exchange.outcome === 'error' || exchange.outcome === 'tool_error';
}

/**
 * The failing calls of a stream of pairing events, for `show --errors`: a request is held until its answer says
 * whether it failed (memory: the requests still open), then handed on with its answer, or dropped. The trace's
 * header comes through; every other line does not. `ids` lists the failed calls in the order their answers came.
 *
 * @example const failed = new FailedCalls(); for (const ev of events) for (const e of failed.push(ev)) print(e);
 */
export class FailedCalls {
  readonly ids: string[] = [];
  private readonly open = new Map<Exchange, PairEvent>();

  push(ev: PairEvent): PairEvent[] {
    switch (ev.kind) {
      case 'line':
        return ev.line.type === 'meta' ? [ev] : [];
      case 'request':
        this.open.set(ev.exchange, ev);
        return [];
      case 'response': {
        const request = this.open.get(ev.exchange);
        this.open.delete(ev.exchange);
        if (!callFailed(ev.exchange)) return [];
        this.ids.push(idTag(ev.exchange.id));
        return request ? [request, ev] : [ev];
      }
      case 'unanswered':
        this.open.delete(ev.exchange);
        return [];
      default:
        return [];
    }
  }

  /** The closing line: `failed: #2 #7`, or `failed: none`. */
  summary(): string {
    return `failed: ${this.ids.length === 0 ? 'none' : this.ids.join(' ')}`;
  }
}
