import { createHash, type Hash } from 'node:crypto';

/** What a body copy holds once its body ended: the text, or only its size and digest when it was too big. */
export type CopiedBody =
  | { kind: 'empty' }
  | { kind: 'text'; text: string; size: number }
  | { kind: 'oversize'; size: number; sha256: string };

/**
 * The trace's copy of one HTTP body, kept apart from the bytes that are forwarded (those never wait for it).
 * Memory is bounded by `maxBytes`: past it the chunks are dropped and only a running SHA-256 is kept, so a
 * 100 MB upload costs a hash, not 100 MB.
 *
 * @example const copy = new BodyCopy(1 << 24); copy.push(chunk); …; const body = copy.end();
 */
export class BodyCopy {
  private chunks: Buffer[] = [];
  private size = 0;
  private hash: Hash | undefined;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.hash !== undefined) {
      this.hash.update(chunk);
      return;
    }
    this.chunks.push(chunk);
    if (this.size <= this.maxBytes) return;
    this.hash = createHash('sha256');
    for (const held of this.chunks) this.hash.update(held);
    this.chunks = [];
  }

  /** Bytes seen so far. */
  get bytes(): number {
    return this.size;
  }

  end(): CopiedBody {
    if (this.hash !== undefined)
      return { kind: 'oversize', size: this.size, sha256: this.hash.digest('hex') };
    if (this.size === 0) return { kind: 'empty' };
    const text = (this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)).toString('utf8');
    this.chunks = [];
    return { kind: 'text', text, size: this.size };
  }
}

/**
 * The first bytes of a body that is not a message (plain text, HTML, an image), and its size: enough for an event
 * to say what came instead, never the whole thing.
 *
 * @example const head = new BodyHead(512); head.push(chunk); head.text() // 'Bad Gateway'
 */
export class BodyHead {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  size = 0;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.kept >= this.maxBytes) return;
    const part = chunk.subarray(0, this.maxBytes - this.kept);
    this.chunks.push(part);
    this.kept += part.length;
  }

  /** The kept bytes as text (a character cut in half at the end becomes U+FFFD). */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}
