import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** One server-sent event as it arrived: `event` is undefined when the server named none. */
export type SseEvent = EventSourceMessage;

export interface SseReadOptions {
  /** The server asked for a reconnection delay (`retry:`), in ms. */
  onRetry?: ((ms: number) => void) | undefined;
}

/**
 * Reads an SSE body event by event, handing each one out as soon as its blank line has arrived — a stream is never
 * buffered whole, so a long-running call's progress reaches the caller while the call still runs. Framing is left
 * to eventsource-parser; bytes are decoded as UTF-8 in stream mode, so a character split across chunks survives.
 *
 * @example for await (const event of readSse(response.body)) console.log(event.id, event.data);
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  options: SseReadOptions = {},
): AsyncGenerator<SseEvent> {
  const ready: SseEvent[] = [];
  const parser = createParser({
    onEvent: (event) => ready.push(event),
    onRetry: (ms) => options.onRetry?.(ms),
  });
  const decoder = new TextDecoder('utf-8');
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      while (ready.length > 0) yield ready.shift()!;
    }
    parser.feed(decoder.decode());
    // A last event without its blank line is incomplete by the SSE rules: it is dropped, as a browser drops it.
    while (ready.length > 0) yield ready.shift()!;
  } finally {
    // Leaving early (the caller stopped, or an abort) releases the connection.
    await reader.cancel().catch(() => {});
  }
}
