/**
 * Bytes that arrive over time (a download), readable from the start any number of times while they arrive: the
 * reader parses the first megabytes of a trace while the rest is still on the wire.
 */
export class GrowingBytes {
  private readonly chunks: Uint8Array[] = [];
  private waiting: (() => void)[] = [];
  private joined: Uint8Array | undefined;
  private failure: unknown;
  /** Bytes received so far. */
  size = 0;
  done = false;

  push(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    this.joined = undefined;
    this.wake();
  }

  finish(): void {
    this.done = true;
    this.wake();
  }

  fail(err: unknown): void {
    this.failure = err;
    this.done = true;
    this.wake();
  }

  /** The bytes from the start, in chunks of up to `max` bytes, waiting for more until the download ends. */
  async *read(max = 1024 * 1024): AsyncGenerator<Uint8Array> {
    let at = 0;
    for (;;) {
      if (at < this.chunks.length) {
        // Join what is already here (downloads come in 64 KiB pieces; the reader likes bigger ones).
        let end = at;
        let size = 0;
        while (end < this.chunks.length && (end === at || size + this.chunks[end]!.length <= max)) {
          size += this.chunks[end]!.length;
          end++;
        }
        yield end === at + 1 ? this.chunks[at]! : concat(this.chunks.slice(at, end), size);
        at = end;
        continue;
      }
      if (this.failure !== undefined) throw this.failure;
      if (this.done) return;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  /** Everything received so far as one array (the Raw view's text). */
  bytes(): Uint8Array {
    this.joined ??= concat(this.chunks, this.size);
    return this.joined;
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}

function concat(parts: readonly Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
