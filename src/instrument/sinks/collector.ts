import { delay } from '../../base/scheduler.js';
import { createRedactor } from '../../redact/engine.js';
import type { RedactConfig, Redactor } from '../../redact/types.js';
import { BaseSink } from '../../sink/sink.js';
import type { EndLine, MetaLine, RecordLine } from '../../trace/types.js';
import { INSTRUMENT_DEFAULTS } from '../defaults.js';
import type { CollectorDestination, EventSink, RequestEvent } from '../types.js';
import { linesOf, metaOf, sessionLabel } from './lines.js';

/** The collector routes this sink uses (see the collector's API, version 1). */
export const COLLECTOR_ROUTES = {
  createLive: '/api/v1/traces/live',
  appendLines: (id: string) => `/api/v1/traces/${encodeURIComponent(id)}/lines`,
} as const;

/** Numbers and encodes a session's lines (BaseSink: seq, redaction, end line) and holds them until uploaded. */
class LineBuffer extends BaseSink {
  metaText = '';
  private pending: string[] = [];
  protected writeMeta(_meta: MetaLine, text: string): void {
    this.metaText = text;
  }
  protected writeRecord(_line: RecordLine, text: string): void {
    this.pending.push(text);
  }
  protected async writeEnd(_end: EndLine, text: string): Promise<void> {
    this.pending.push(text);
  }
  take(): string {
    const text = this.pending.join('');
    this.pending = [];
    return text;
  }
}

/** A session's live trace on the collector. */
interface LiveSession {
  buffer: LineBuffer;
  label: string;
  /** The collector's trace id, once created. */
  traceId: string | undefined;
  /** The meta line goes first in the first append that succeeds. */
  metaSent: boolean;
}

/** Why one try failed, and whether another may succeed. */
class TryError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
    readonly afterMs?: number,
    /** The live trace is gone or ended: make a new one. */
    readonly lostTrace = false,
  ) {
    super(message);
  }
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * Sends sessions to a tapedeck collector as live traces: a session becomes a trace (`POST /api/v1/traces/live`),
 * each batch of its requests one append of JSONL lines with the write token, its end line when the session ends
 * or at shutdown. Network failures, timeouts, 408, 429 and 5xx are tried again with exponential backoff and
 * jitter (Retry-After honoured up to a cap); the collector skips lines it already stored, so a retry never
 * stores a line twice. Runs from the recorder's drain, never on a request's path.
 */
export class CollectorSink implements EventSink {
  readonly name = 'collector';
  private readonly base: string;
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly redact: Redactor;
  private readonly sessions = new Map<string, LiveSession>();

  constructor(
    private readonly destination: CollectorDestination,
    private readonly uploadTimeout: number,
    redaction: RedactConfig,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {
    this.base = destination.url.replace(/\/+$/, '');
    this.attempts = Math.max(1, destination.attempts ?? INSTRUMENT_DEFAULTS.collectorAttempts);
    this.backoffMs = Math.max(0, destination.backoffMs ?? INSTRUMENT_DEFAULTS.collectorBackoffMs);
    this.redact = createRedactor(redaction);
  }

  async write(events: readonly RequestEvent[]): Promise<void> {
    const bySession = new Map<string, RequestEvent[]>();
    for (const event of events) {
      const list = bySession.get(event.sessionId);
      if (list === undefined) bySession.set(event.sessionId, [event]);
      else list.push(event);
    }
    const failures: string[] = [];
    for (const [id, list] of bySession) {
      const session = this.session(id, list[0]!);
      for (const event of list) for (const body of linesOf(event)) session.buffer.append(body);
      try {
        await this.upload(session);
      } catch (err) {
        failures.push((err as Error).message);
      }
    }
    if (failures.length > 0) throw new Error(failures.join('; '));
  }

  async sessionEnded(sessionId: string): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (session === undefined) return;
    this.sessions.delete(sessionId);
    await session.buffer.close({ reason: 'producer_shutdown' });
    await this.upload(session);
  }

  /** Ends every open session's trace; a session that goes on afterwards starts a new one. */
  async shutdown(): Promise<void> {
    const ids = [...this.sessions.keys()];
    const results = await Promise.allSettled(ids.map((id) => this.sessionEnded(id)));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed.length > 0) throw new Error(failed.map((r) => (r.reason as Error).message).join('; '));
  }

  private session(id: string, first: RequestEvent): LiveSession {
    let session = this.sessions.get(id);
    if (session === undefined) {
      const buffer = new LineBuffer({ redact: this.redact });
      buffer.start(metaOf(first));
      session = { buffer, label: sessionLabel(first), traceId: undefined, metaSent: false };
      this.sessions.set(id, session);
    }
    return session;
  }

  /** Appends what the session's buffer holds; throws after the last try (the lines are then lost). */
  private async upload(session: LiveSession): Promise<void> {
    const text = session.buffer.take();
    if (text === '' && session.metaSent) return;
    let last: TryError | undefined;
    for (let attempt = 1; attempt <= this.attempts; attempt += 1) {
      try {
        session.traceId ??= await this.createTrace(session.label);
        await this.append(session.traceId, (session.metaSent ? '' : session.buffer.metaText) + text);
        session.metaSent = true;
        return;
      } catch (err) {
        last = err instanceof TryError ? err : new TryError((err as Error).message, true);
        if (last.lostTrace) {
          session.traceId = undefined;
          session.metaSent = false;
        }
        if (!last.retry || attempt === this.attempts) break;
        const backoff = this.backoffMs * 2 ** (attempt - 1) * (0.8 + Math.random() * 0.4);
        await delay(Math.min(INSTRUMENT_DEFAULTS.collectorMaxBackoffMs, last.afterMs ?? backoff));
      }
    }
    throw new Error(
      `upload to ${this.base} failed after ${this.attempts} tries: ${last?.message ?? 'unknown'}`,
    );
  }

  private async createTrace(label: string): Promise<string> {
    const answer = await this.post(
      COLLECTOR_ROUTES.createLive,
      JSON.stringify({ label }),
      'application/json',
    );
    const id = (JSON.parse(answer) as { id?: unknown }).id;
    if (typeof id !== 'string')
      throw new TryError('the collector answered a live trace without an id', false);
    return id;
  }

  private async append(traceId: string, body: string): Promise<void> {
    await this.post(COLLECTOR_ROUTES.appendLines(traceId), body, 'application/x-ndjson');
  }

  /** One POST with the token; the answer's text on 2xx, a TryError otherwise. */
  private async post(path: string, body: string, type: string): Promise<string> {
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': type, authorization: `Bearer ${this.destination.token}` },
        body,
        signal: AbortSignal.timeout(this.uploadTimeout),
      });
    } catch (err) {
      const code = (err as { cause?: { code?: unknown } }).cause?.code;
      const timedOut = (err as Error).name === 'TimeoutError';
      const why = timedOut
        ? `no answer within ${this.uploadTimeout} ms`
        : typeof code === 'string'
          ? code
          : (err as Error).message;
      throw new TryError(why, true);
    }
    const text = await response.text().catch(() => '');
    if (response.ok) return text;
    const status = response.status;
    const said = errorMessage(text);
    const message = `HTTP ${status}${said === '' ? '' : `: ${said}`}`;
    // 404/409 on an append: the trace was deleted or already ended; the next try makes a new one.
    const lostTrace = path !== COLLECTOR_ROUTES.createLive && (status === 404 || status === 409);
    const retry = lostTrace || status === 408 || status === 429 || status >= 500;
    throw new TryError(message, retry, retryAfterMs(response.headers.get('retry-after')), lostTrace);
  }
}

/** The collector's one-line error message, or the start of the body. */
function errorMessage(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return message;
  } catch {
    // Not JSON.
  }
  return body.slice(0, 200);
}
