import type { JsonObject } from '../../trace/jsonrpc.js';
import type {
  Anchor,
  Cassette,
  CassetteExchange,
  ServerMessage,
  UnsolicitedMessage,
} from '../cassette/types.js';

/**
 * What replay sends after one live client message, in recorded order: an exchange's script with the unsolicited
 * messages anchored to its request woven in by trace position, then (at its recorded place) the response.
 */

export type TimelineItem =
  | {
      kind: 'message';
      /** Recorded ms from the anchor. */
      atMs: number;
      message: ServerMessage;
      /** Set when the message is unsolicited (its subscription, its answer anchor). */
      unsolicited: UnsolicitedMessage | undefined;
    }
  | { kind: 'response'; atMs: number; response: JsonObject };

/**
 * The map key of an anchor.
 *
 * @example anchorKey({ kind: 'request', exchange: 3 }) // → 'request:3'
 */
export function anchorKey(anchor: Anchor): string {
  switch (anchor.kind) {
    case 'start':
      return 'start';
    case 'request':
      return `request:${anchor.exchange}`;
    case 'notification':
      return `notification:${anchor.notification}`;
    case 'answer':
      return `answer:${anchor.unsolicited}`;
  }
}

/**
 * The cassette's unsolicited messages grouped by anchor key, each group in recorded order.
 *
 * @example unsolicitedByAnchor(cassette).get('notification:0')?.map((m) => m.method) // → ['notifications/tools/list_changed', …]
 */
export function unsolicitedByAnchor(cassette: Cassette): Map<string, UnsolicitedMessage[]> {
  const groups = new Map<string, UnsolicitedMessage[]>();
  for (const message of cassette.unsolicited) {
    const key = anchorKey(message.anchor);
    const group = groups.get(key);
    if (group) group.push(message);
    else groups.set(key, [message]);
  }
  return groups;
}

/**
 * An exchange's timeline: script steps and `anchored` unsolicited messages by trace position, then the response
 * at its recorded place (exchanges never answered, like `subscriptions/listen`, have none).
 *
 * @example exchangeTimeline(exchange, []).map((i) => i.kind) // → ['message', 'message', 'response']
 */
export function exchangeTimeline(
  exchange: CassetteExchange,
  anchored: readonly UnsolicitedMessage[],
): TimelineItem[] {
  const items: { order: number; item: TimelineItem }[] = [];
  for (const message of exchange.script)
    items.push({
      order: message.order,
      item: { kind: 'message', atMs: message.atMs, message, unsolicited: undefined },
    });
  for (const message of anchored)
    items.push({
      order: message.order,
      item: { kind: 'message', atMs: message.atMs, message, unsolicited: message },
    });
  if (exchange.response) {
    const last = exchange.script[exchange.script.length - 1]?.atMs ?? 0;
    items.push({
      order: exchange.responseOrder ?? Number.POSITIVE_INFINITY,
      item: { kind: 'response', atMs: exchange.respondedAtMs ?? last, response: exchange.response },
    });
  }
  return items.sort((a, b) => a.order - b.order).map(({ item }) => item);
}

/**
 * A timeline of unsolicited messages alone (anchored to a notification, an answer, or the start).
 *
 * @example anchoredTimeline(groups.get('start') ?? [])
 */
export function anchoredTimeline(anchored: readonly UnsolicitedMessage[]): TimelineItem[] {
  return anchored.map((message) => ({ kind: 'message', atMs: message.atMs, message, unsolicited: message }));
}
