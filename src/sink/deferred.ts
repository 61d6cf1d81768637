import type { MetaLine, RecordBody } from '../trace/types.js';
import type { EndInfo, TraceSink } from './sink.js';

/** How much a {@link DeferredSink} holds before it starts its sink anyway. */
export const DEFERRED_LIMITS = { lines: 10_000, chars: 8 * 1024 * 1024 } as const;

/**
 * A sink that starts the sink it wraps only once an MCP message has crossed. Until then it holds the meta and the
 * lines before the first message (a spawn failure, the server's start-up stderr); a session in which no message
 * crossed at all — a server that could not start, or exited saying nothing — writes nothing. Recording over an
 * existing cassette therefore never replaces it with a trace of a failed start. Held lines keep their own times.
 * Past {@link DEFERRED_LIMITS} (a server that talks a lot on stderr before its first message) it starts anyway.
 *
 * @example
 * const sink = new DeferredSink(new FileSink({ path: 'fixtures/s.jsonl' }));
 * await recordStdioSession(['node', 'server.js'], sink);
 * if (!sink.started) console.error('nothing was recorded; fixtures/s.jsonl is as it was');
 */
export class DeferredSink implements TraceSink {
  private meta: MetaLine | undefined;
  private held: Array<[RecordBody, string | Buffer | undefined]> = [];
  private heldChars = 0;
  private opened = false;

  constructor(
    private readonly inner: TraceSink,
    private readonly limits: { lines: number; chars: number } = DEFERRED_LIMITS,
  ) {}

  /** Whether the wrapped sink was started: a message crossed (or the held lines outgrew the limits). */
  get started(): boolean {
    return this.opened;
  }

  start(meta: MetaLine): void {
    this.meta = meta;
  }

  append(body: RecordBody, rawText?: string | Buffer): void {
    if (this.opened) {
      this.inner.append(body, rawText);
      return;
    }
    // Bytes are lent for the call only: held ones are copied.
    this.held.push([body, typeof rawText === 'object' ? Buffer.from(rawText) : rawText]);
    this.heldChars +=
      rawText?.length ?? ('text' in body && typeof body.text === 'string' ? body.text.length : 0);
    const message = body.type === undefined && 'raw' in body;
    if (message || this.held.length > this.limits.lines || this.heldChars > this.limits.chars) this.open();
  }

  async close(info: EndInfo): Promise<void> {
    if (!this.opened) {
      this.held = [];
      return;
    }
    await this.inner.close(info);
  }

  private open(): void {
    this.opened = true;
    if (this.meta !== undefined) this.inner.start(this.meta);
    const held = this.held;
    this.held = [];
    for (const [body, rawText] of held) this.inner.append(body, rawText);
  }
}
