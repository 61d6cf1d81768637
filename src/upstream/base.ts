import { timedFetch } from './fetch.js';
import { UPSTREAM_DEFAULTS, type UpstreamOptions, type UpstreamTimeouts } from './types.js';

/**
 * What the Streamable HTTP and legacy SSE clients share: the options they were made with, the session's lifetime
 * (one AbortController ends every request of it), the `closed` promise, and requests bounded by the header
 * timeout.
 */
export abstract class HttpUpstreamBase {
  readonly url: string;
  /** Resolves, once, with the reason the session ended. */
  readonly closed: Promise<string>;
  sessionId: string | undefined;
  protected readonly fetch: typeof fetch;
  /** Headers sent with every request (`--header`). */
  protected readonly extra: Readonly<Record<string, string>>;
  protected readonly timeouts: UpstreamTimeouts;
  /** Aborted when the session ends: every request of the session goes with it. */
  protected readonly life = new AbortController();
  /** POSTs sent so far, for naming their streams (`post-1`, `post-2` …). */
  protected posts = 0;
  private resolveClosed!: (reason: string) => void;

  constructor(protected readonly options: UpstreamOptions) {
    this.url = options.url;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.extra = options.headers ?? {};
    this.timeouts = { ...UPSTREAM_DEFAULTS.timeouts, ...options.timeouts };
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  /** Settles `closed` (the first reason wins). */
  protected markClosed(reason: string): void {
    this.resolveClosed(reason);
  }

  /** A request of this session: given up with it, or after `headersMs` (default: the header timeout) without an answer head. */
  protected request(
    url: string,
    init: RequestInit,
    signal: AbortSignal = this.life.signal,
    headersMs = this.timeouts.headersMs,
  ): Promise<Response> {
    return timedFetch({ fetch: this.fetch, url, init, signal, headersMs });
  }
}
