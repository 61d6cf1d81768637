import { currentHttpFacts, type HttpRequestFacts } from './http-context.js';

/** The transport-level facts of an incoming message, as the SDK hands them over. */
export interface IncomingExtra {
  requestInfo?: { headers: Record<string, string | string[] | undefined>; url?: URL } | undefined;
  authInfo?:
    | { token: string; clientId: string; scopes: string[]; extra?: Record<string, unknown> }
    | undefined;
}

/**
 * What the log hands each message to when it is processed: the connection's tap (tap.ts). The log keeps messages
 * as it got them and never looks inside; the tap knows their shape.
 */
export interface WireTap {
  incoming(
    message: never,
    extra: IncomingExtra | undefined,
    hr: number,
    http: HttpRequestFacts | undefined,
  ): void;
  outgoing(message: never, relatedRequestId: string | number | undefined, hr: number): void;
  closed(hr: number): void;
}

const IN = 0;
const OUT = 1;
const CLOSE = 2;
/** Slots per entry: tap, kind, message, extra or relatedRequestId, clock reading, HTTP facts. */
const STRIDE = 6;

/**
 * What the request path does for a message: one clock reading and one append to a flat array. Pairing requests
 * with answers and attributing related messages (the ConnectionTap's work) happen later, in order, when the
 * recorder processes the log. The log holds at most `limit` messages: a workload that never yields to the event
 * loop (timers never run) has the log paired in place when it fills, so memory stays bounded.
 */
export class WireLog {
  private entries: unknown[] = [];
  private readonly limitSlots: number;

  constructor(
    limit: number,
    /** Asked to process the log soon; `full` when the log reached its limit. */
    private readonly wake: (pending: number, full: boolean) => void,
  ) {
    this.limitSlots = Math.max(1, limit) * STRIDE;
  }

  /** Messages waiting to be paired. */
  get length(): number {
    return this.entries.length / STRIDE;
  }

  /** A message from the client. */
  incoming(tap: WireTap, message: unknown, extra: IncomingExtra | undefined): void {
    this.append(tap, IN, message, extra, currentHttpFacts());
  }

  /** A message to the client, with the relatedRequestId the SDK passed to `send`. */
  outgoing(tap: WireTap, message: unknown, relatedRequestId: string | number | undefined): void {
    this.append(tap, OUT, message, relatedRequestId, undefined);
  }

  /** The connection closed. */
  closed(tap: WireTap): void {
    this.append(tap, CLOSE, undefined, undefined, undefined);
  }

  /** Hands every logged message to its tap, oldest first, and empties the log. */
  drainInto(fail: (error: unknown) => void): void {
    const entries = this.entries;
    if (entries.length === 0) return;
    this.entries = [];
    for (let i = 0; i < entries.length; i += STRIDE) {
      const tap = entries[i] as WireTap;
      const hr = entries[i + 4] as number;
      try {
        switch (entries[i + 1]) {
          case IN:
            tap.incoming(
              entries[i + 2] as never,
              entries[i + 3] as IncomingExtra | undefined,
              hr,
              entries[i + 5] as HttpRequestFacts | undefined,
            );
            break;
          case OUT:
            tap.outgoing(entries[i + 2] as never, entries[i + 3] as string | number | undefined, hr);
            break;
          default:
            tap.closed(hr);
        }
      } catch (err) {
        fail(err);
      }
    }
  }

  private append(tap: WireTap, kind: number, message: unknown, aux: unknown, http: unknown): void {
    const entries = this.entries;
    entries.push(tap, kind, message, aux, performance.now(), http);
    this.wake(entries.length / STRIDE, entries.length >= this.limitSlots);
  }
}
