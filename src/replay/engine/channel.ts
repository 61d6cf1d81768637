import type { Json } from '../../trace/types.js';

/**
 * The replay engine's one view of a client: send a message, hear messages. Front doors (stdio, Streamable HTTP, an
 * in-process transport) adapt their wire to this; tests use {@link linkedChannels}.
 */
export interface ReplayChannel {
  /**
   * `owned`: nothing else holds any part of `message` (a response parsed for this send alone), so a channel that
   * hands objects over instead of text may hand it over as it is; otherwise such a channel hands over a copy.
   */
  send(message: Json, owned?: boolean): void;
  onMessage(handler: (message: Json) => void): void;
}

/**
 * Two channels joined back to back, in memory: what one sends, the other hears on a later microtask, as a copy
 * (so neither side can change the other's objects, as over a wire).
 *
 * @example
 * const [server, client] = linkedChannels();
 * client.onMessage((m) => console.log('client got', m));
 * server.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
 */
export function linkedChannels(): [ReplayChannel, ReplayChannel] {
  const handlers: [((message: Json) => void)[], ((message: Json) => void)[]] = [[], []];
  const side = (self: 0 | 1): ReplayChannel => ({
    send(message) {
      const copy = JSON.parse(JSON.stringify(message)) as Json;
      queueMicrotask(() => {
        for (const handler of handlers[self === 0 ? 1 : 0]) handler(copy);
      });
    },
    onMessage(handler) {
      handlers[self].push(handler);
    },
  });
  return [side(0), side(1)];
}
