import { realScheduler, type Scheduler } from '../base/scheduler.js';
import { scaledDelay, type Timing } from '../replay/options.js';
import type { RecordedAsk, VerifySession, VerifyStep } from './verify-sessions.js';

/**
 * Verify keeps the recording's order, not only the order of the client's own messages. A server may ask the client
 * something on its own (server-filesystem asks `roots/list` as soon as the handshake is done, and applies the
 * answer before it serves files): in the recording that question came, was answered and acted on before the next
 * call. Sent as fast as it can go, verify's next call would overtake it, and the server would answer from a state
 * the recording never had. So before each client message verify waits — up to a bound, and says so when the bound
 * runs out — for the server's requests that came before that message in the recording, then gives the server a
 * moment to act on the client's answer (nothing on the wire says when it has: the recorded gap says only how long a
 * fast machine took, and a loaded one takes longer). `timing: 'recorded'` (or a speed factor) keeps every recorded
 * gap between client messages besides.
 */

export interface PacingOptions {
  timing: Timing;
  /** How long to wait for the server's requests that came before a client message in the recording. */
  askWaitMs: number;
  /** After the client answered a server's request, how long the server gets to act on it before the next message. */
  answerSettleMs: number;
  /** The longest single recorded gap kept under `timing: 'recorded'`. */
  maxDelayMs: number;
  scheduler?: Scheduler | undefined;
}

/** A wait that ran out: what the server had not asked yet, and before which client message. */
export interface MissedAsks {
  /** The recorded requests not seen, by method, e.g. `roots/list`. */
  methods: string[];
  /** How long verify waited. */
  ms: number;
}

/**
 * The pace of one live session: told of every server→client request the live server sends (`asked`) and of every
 * client message sent (`sent`), it says how long to hold back the next one (`before`).
 *
 * @example
 * const pacer = new SessionPacer(session, { timing: 'none', askWaitMs: 5000, answerSettleMs: 250, maxDelayMs: 60_000 });
 * // in the live peer's onRequest: pacer.asked();
 * const missed = await pacer.before(step); // then send the step, and pacer.sent(step)
 */
export class SessionPacer {
  private readonly scheduler: Scheduler;
  private readonly asks: readonly RecordedAsk[];
  /** Server requests the live server sent in this session. */
  private live = 0;
  /** Recorded requests a run-out wait gave up on: not waited for again. */
  private forgiven = 0;
  /** Recorded requests that came before the previous client message (their answers' gaps are already kept). */
  private settled = 0;
  private wake: (() => void) | undefined;
  private last: { recorded: number | undefined; at: number } | undefined;

  constructor(
    session: Pick<VerifySession, 'asks'>,
    private readonly options: PacingOptions,
    /** Exchanges verify does not send: the requests their scripts held will not come. */
    skipped: ReadonlySet<number> = new Set(),
  ) {
    this.scheduler = options.scheduler ?? realScheduler;
    this.asks = session.asks.filter((ask) => ask.exchange === undefined || !skipped.has(ask.exchange));
  }

  /** The live server sent a request to the client (called once its answer is on its way). */
  asked(): void {
    this.live++;
    this.wake?.();
  }

  /** `step` was sent now. */
  sent(step: VerifyStep): void {
    this.last = { recorded: timeOf(step), at: this.scheduler.now() };
  }

  /** Waits as the recording says before `step` goes out; resolves to what the server failed to ask in time. */
  async before(step: VerifyStep): Promise<MissedAsks | undefined> {
    const order = step.kind === 'exchange' ? step.exchange.order : step.note.order;
    const due = this.asks.filter((ask) => ask.order < order);
    const missed = await this.awaitAsks(due.length);
    const fresh = due.slice(this.settled).filter((ask) => (ask.answerOrder ?? order) < order);
    this.settled = Math.max(this.settled, due.length);
    // A question that never came was never answered: there is no gap after its answer to keep.
    await this.keepGaps(step, missed ? [] : fresh);
    return missed;
  }

  private async awaitAsks(due: number): Promise<MissedAsks | undefined> {
    const wanted = due - this.forgiven;
    if (this.live >= wanted) return undefined;
    const ms = this.options.askWaitMs;
    await new Promise<void>((resolve) => {
      const finish = () => {
        this.scheduler.clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = this.scheduler.setTimeout(finish, ms, { unref: true });
      this.wake = () => {
        if (this.live >= wanted) finish();
      };
    });
    if (this.live >= wanted) return undefined;
    const methods = this.asks.slice(this.live + this.forgiven, due).map((ask) => ask.method);
    // Waited for once: a server that no longer asks is not waited for before every later message.
    this.forgiven = due - this.live;
    return { methods, ms };
  }

  /** The moment after the answers given since the last message, and (recorded timing) every recorded gap. */
  private async keepGaps(step: VerifyStep, fresh: readonly RecordedAsk[]): Promise<void> {
    const { timing, answerSettleMs, maxDelayMs } = this.options;
    const recorded = timeOf(step);
    const times = fresh.flatMap((ask) => (ask.answeredAt === undefined ? [] : [ask.answeredAt]));
    const answered = times.length > 0 ? Math.max(...times) : undefined;
    let wait = answered === undefined ? 0 : answerSettleMs;
    if (timing !== 'none' && answered !== undefined && recorded !== undefined)
      wait = Math.max(wait, scaledDelay(recorded - answered, timing, maxDelayMs));
    if (timing !== 'none' && this.last?.recorded !== undefined && recorded !== undefined) {
      const gap = scaledDelay(recorded - this.last.recorded, timing, maxDelayMs);
      wait = Math.max(wait, gap - (this.scheduler.now() - this.last.at));
    }
    if (wait > 0)
      await new Promise<void>((resolve) => this.scheduler.setTimeout(() => resolve(), wait, { unref: true }));
  }
}

function timeOf(step: VerifyStep): number | undefined {
  return step.kind === 'exchange' ? step.exchange.time : step.note.time;
}
