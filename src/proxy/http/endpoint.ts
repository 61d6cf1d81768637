/**
 * The legacy HTTP+SSE transport: the server's first event on `GET /sse` is `endpoint`, whose data is the URL the
 * client must POST to. A relative URL (`/message?sessionId=…`) already resolves against the proxy; an absolute one
 * naming the upstream would send the client around the proxy, so it is rewritten to the proxy's own origin,
 * keeping path and query.
 */

/**
 * The `endpoint` data to give the client instead of `data`, or undefined when it may pass as is (relative, or
 * naming another origin — which the proxy cannot serve either way).
 *
 * @example rewriteEndpoint('http://10.0.0.5:3001/message?sessionId=a', new URL('http://10.0.0.5:3001/sse'), 'http://127.0.0.1:7430') === 'http://127.0.0.1:7430/message?sessionId=a'
 */
export function rewriteEndpoint(data: string, upstream: URL, proxyOrigin: string): string | undefined {
  const text = data.trim();
  if (!/^[a-z][a-z0-9+.-]*:/i.test(text)) return undefined;
  let target: URL;
  try {
    target = new URL(text);
  } catch {
    return undefined;
  }
  if (target.origin !== upstream.origin) return undefined;
  return `${proxyOrigin}${target.pathname}${target.search}`;
}

/**
 * Holds the first bytes of a GET event stream until its first event is complete, so an `endpoint` event can be
 * rewritten before the client sees it; then passes every chunk straight through. Holding costs the client nothing
 * (it cannot act on half an event) and is capped: past `limit` bytes without an event the bytes go out unchanged.
 *
 * @example const hold = new EndpointHold((b) => res.write(b), 65536); hold.push(chunk); …; hold.release(rewrite);
 */
export class EndpointHold {
  private held: Buffer[] | undefined = [];
  private size = 0;

  constructor(
    private readonly write: (chunk: Buffer) => boolean,
    private readonly limit: number,
  ) {}

  /** True while bytes are being held back. */
  get holding(): boolean {
    return this.held !== undefined;
  }

  /** Forwards (or holds) a chunk; false when the destination asks the source to pause. */
  push(chunk: Buffer): boolean {
    if (this.held === undefined) return this.write(chunk);
    this.held.push(chunk);
    this.size += chunk.length;
    if (this.size > this.limit) this.release();
    return true;
  }

  /** Lets the held bytes go, with the first occurrence of `from` replaced by `to`, and stops holding. */
  release(replace?: { from: string; to: string }): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    if (held.length === 0) return;
    let bytes = Buffer.concat(held);
    if (replace !== undefined) {
      const from = Buffer.from(replace.from, 'utf8');
      const at = bytes.indexOf(from);
      if (at >= 0) {
        bytes = Buffer.concat([
          bytes.subarray(0, at),
          Buffer.from(replace.to, 'utf8'),
          bytes.subarray(at + from.length),
        ]);
      }
    }
    this.write(bytes);
  }
}
