import type { RateLimit } from './options.js';

/** Buckets kept at most; past it, full (idle) buckets are forgotten first. */
const MAX_BUCKETS = 10_000;

/**
 * A token bucket per client: `burst` requests at once, refilled at `perSecond`. A request that finds the bucket
 * empty is answered 429 with the seconds until a token is back (Retry-After). The routes name a client by its
 * address and whether it presented the write token, so each kind has a bucket of its own.
 *
 * @example const buckets = new TokenBuckets({ burst: 10, perSecond: 5 }); buckets.take('127.0.0.1 token') // 0 = go ahead
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a token for `client`: 0 when allowed, else the whole seconds to wait. */
  take(client: string): number {
    const now = this.now();
    let bucket = this.buckets.get(client);
    if (bucket === undefined) {
      if (this.buckets.size >= MAX_BUCKETS) this.prune(now);
      bucket = { tokens: this.limit.burst, at: now };
      this.buckets.set(client, bucket);
    } else {
      bucket.tokens = Math.min(
        this.limit.burst,
        bucket.tokens + ((now - bucket.at) / 1000) * this.limit.perSecond,
      );
      bucket.at = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.limit.perSecond));
  }

  private prune(now: number): void {
    for (const [client, bucket] of this.buckets) {
      const tokens = bucket.tokens + ((now - bucket.at) / 1000) * this.limit.perSecond;
      if (tokens >= this.limit.burst) this.buckets.delete(client);
    }
    // Still full of busy clients: drop the oldest entries rather than grow without bound.
    for (const client of this.buckets.keys()) {
      if (this.buckets.size < MAX_BUCKETS) break;
      this.buckets.delete(client);
    }
  }
}
