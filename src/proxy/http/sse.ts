import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';

export interface SseTapHandlers {
  /** A whole event (the parser dispatches only events that had a `data` field, possibly empty). */
  onEvent: (event: EventSourceMessage) => void;
  /** A `retry:` field: the reconnection delay the server asks for. */
  onRetry?: (ms: number) => void;
  /** An event grew past the limit: its copy is dropped (the bytes were forwarded all the same). */
  onOversize?: (limit: number) => void;
}

/**
 * Reads a copy of an event stream as it arrives, chunk by chunk, and reports each event once it is complete.
 * Framing is eventsource-parser's; bytes are decoded as UTF-8 across chunk boundaries. One event's data is held
 * at most up to `maxChars`: past it the event is reported as oversize and skipped.
 *
 * @example const tap = new SseTap(1 << 24, { onEvent: (e) => console.log(e.id, e.data) }); tap.push(chunk); tap.end();
 */
export class SseTap {
  private readonly decoder = new TextDecoder('utf-8');
  private readonly parser: EventSourceParser;
  private overflowed = false;

  constructor(
    private readonly maxChars: number,
    private readonly handlers: SseTapHandlers,
  ) {
    this.parser = createParser({
      onEvent: (event) => this.dispatch(event),
      onRetry: (ms) => this.handlers.onRetry?.(ms),
      onError: (err) => {
        if (err.type !== 'max-buffer-size-exceeded') return;
        this.overflowed = true;
        this.handlers.onOversize?.(this.maxChars);
      },
      maxBufferSize: maxChars,
    });
  }

  push(chunk: Uint8Array): void {
    this.feed(this.decoder.decode(chunk, { stream: true }));
  }

  /** The stream ended: a last event without its blank line is not an event (the SSE rules), so it is dropped. */
  end(): void {
    const rest = this.decoder.decode();
    if (rest !== '') this.feed(rest);
  }

  private feed(text: string): void {
    if (this.overflowed) {
      // The parser stopped at the oversize event; pick up again after it ends (at the next blank line).
      const boundary = /\r\n\r\n|\n\n|\r\r/.exec(text);
      if (boundary === null) return;
      this.overflowed = false;
      this.parser.reset();
      text = text.slice(boundary.index + boundary[0].length);
    }
    this.parser.feed(text);
  }

  private dispatch(event: EventSourceMessage): void {
    // The parser bounds only what it buffers of an unfinished line: an event that arrived whole in one chunk is
    // dispatched whatever its size, so the limit is applied here too.
    if (event.data.length > this.maxChars) {
      this.handlers.onOversize?.(this.maxChars);
      return;
    }
    this.handlers.onEvent(event);
  }
}
