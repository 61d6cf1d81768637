import { INSTRUMENT_DEFAULTS } from '../defaults.js';
import type { CollectorDestination, EventSink, RequestEvent } from '../types.js';

/** Where a collector takes request events, relative to its base URL. */
export const COLLECTOR_INGEST_PATH = '/api/v1/ingest/events';

/** What a failed try says about trying again. */
interface TryFailure {
  message: string;
  retry: boolean;
  /** From a Retry-After header, in ms. */
  afterMs?: number;
}

/** Resolves after `ms`; the timer never keeps the process alive. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * Uploads batches of events to a tapedeck collector: one POST per batch with the write token, tried again with
 * exponential backoff (and jitter) on network failures, timeouts, 408, 429 and 5xx — honouring Retry-After up to
 * a cap. Any other 4xx is final. Runs from the recorder's drain, never on a request's path.
 */
export class CollectorSink implements EventSink {
  readonly name = 'collector';
  private readonly endpoint: string;
  private readonly attempts: number;
  private readonly backoffMs: number;

  constructor(
    private readonly destination: CollectorDestination,
    private readonly uploadTimeout: number,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {
    this.endpoint = `${destination.url.replace(/\/+$/, '')}${COLLECTOR_INGEST_PATH}`;
    this.attempts = Math.max(1, destination.attempts ?? INSTRUMENT_DEFAULTS.collectorAttempts);
    this.backoffMs = Math.max(0, destination.backoffMs ?? INSTRUMENT_DEFAULTS.collectorBackoffMs);
  }

  async write(events: readonly RequestEvent[]): Promise<void> {
    const body = JSON.stringify({ events });
    let last: TryFailure | undefined;
    for (let attempt = 1; attempt <= this.attempts; attempt += 1) {
      last = await this.try(body);
      if (last === undefined) return;
      if (!last.retry || attempt === this.attempts) break;
      const backoff = this.backoffMs * 2 ** (attempt - 1) * (0.8 + Math.random() * 0.4);
      await sleep(Math.min(INSTRUMENT_DEFAULTS.collectorMaxBackoffMs, last.afterMs ?? backoff));
    }
    throw new Error(`upload to ${this.endpoint} failed: ${last?.message ?? 'unknown'}`);
  }

  /** One POST; undefined when the collector took the batch. */
  private async try(body: string): Promise<TryFailure | undefined> {
    let response: Response;
    try {
      response = await this.fetchImpl(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.destination.token}` },
        body,
        signal: AbortSignal.timeout(this.uploadTimeout),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      const what =
        (err as Error).name === 'TimeoutError' ? `no answer within ${this.uploadTimeout} ms` : undefined;
      return { message: what ?? cause ?? (err as Error).message, retry: true };
    }
    if (response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return undefined;
    }
    const text = (await response.text().catch(() => '')).slice(0, 200);
    const status = response.status;
    const retry = status === 408 || status === 429 || status >= 500;
    const failure: TryFailure = { message: `HTTP ${status}${text === '' ? '' : ` ${text}`}`, retry };
    const after = retryAfterMs(response.headers.get('retry-after'));
    if (after !== undefined) failure.afterMs = after;
    return failure;
  }
}
