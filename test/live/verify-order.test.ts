import { describe, expect, it } from 'vitest';
import { type PacingOptions, SessionPacer } from '../../src/live/verify-order.js';
import type { RecordedAsk, VerifyStep } from '../../src/live/verify-sessions.js';
import type { CassetteExchange, ClientNotification } from '../../src/replay/cassette/types.js';
import { ManualClock } from '../helpers/clock.js';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');

/** A client request step recorded at trace position `order`, `at` ms into the recording. */
function request(order: number, at: number, ordinal = order): VerifyStep {
  const exchange = { ordinal, order, time: T0 + at, method: 'tools/call' } as CassetteExchange;
  return { kind: 'exchange', exchange };
}

function notification(order: number, at: number): VerifyStep {
  const note = { index: 0, method: 'notifications/initialized', order, time: T0 + at } as ClientNotification;
  return { kind: 'notification', note };
}

function ask(order: number, answeredAfter: number | undefined, exchange?: number): RecordedAsk {
  return {
    method: 'roots/list',
    order,
    answerOrder: answeredAfter === undefined ? undefined : order + 1,
    answeredAt: answeredAfter === undefined ? undefined : T0 + answeredAfter,
    exchange,
  };
}

function pacer(asks: RecordedAsk[], options: Partial<PacingOptions> = {}, skipped = new Set<number>()) {
  const clock = new ManualClock(T0);
  const settings: PacingOptions = {
    timing: 'none',
    askWaitMs: 5000,
    answerSettleMs: 250,
    maxDelayMs: 60_000,
    scheduler: clock,
    ...options,
  };
  return { clock, pacer: new SessionPacer({ asks }, settings, skipped) };
}

/** Starts `before(step)` and says whether it has finished, and with what. */
function start(p: SessionPacer, step: VerifyStep) {
  const state: { done: boolean; missed: unknown } = { done: false, missed: undefined };
  void p.before(step).then((missed) => {
    state.done = true;
    state.missed = missed;
  });
  return state;
}

describe('the pace of a verified session', () => {
  it('holds a request back until the server asked what it asked before it in the recording', async () => {
    // initialized at 0; roots/list asked at 350 (order 2), answered at 360; the call at 2000 (order 4).
    const { clock, pacer: p } = pacer([ask(2, 360)]);
    const first = start(p, notification(1, 0));
    await clock.advance(0);
    expect(first).toEqual({ done: true, missed: undefined });
    p.sent(notification(1, 0));
    const call = start(p, request(4, 2000));
    await clock.advance(1000);
    expect(call.done).toBe(false);
    p.asked();
    // Asked and answered: then the server's moment to act on the answer.
    await clock.advance(249);
    expect(call.done).toBe(false);
    await clock.advance(1);
    expect(call).toEqual({ done: true, missed: undefined });
  });

  it('gives the server answerSettleMs after an answer however short the recorded gap, the recorded one if longer', async () => {
    // Recorded 20 ms after the answer: a loaded machine may need longer to act on it.
    const short = pacer([ask(2, 360)]);
    short.pacer.asked();
    const call = start(short.pacer, request(4, 380));
    await short.clock.advance(249);
    expect(call.done).toBe(false);
    await short.clock.advance(1);
    expect(call.done).toBe(true);
    const recorded = pacer([ask(2, 360)], { timing: 'recorded' });
    recorded.pacer.asked();
    const late = start(recorded.pacer, request(4, 1360));
    await recorded.clock.advance(999);
    expect(late.done).toBe(false);
    await recorded.clock.advance(1);
    expect(late.done).toBe(true);
  });

  it('gives up after askWaitMs, names what it waited for, and does not wait for it again', async () => {
    const { clock, pacer: p } = pacer([ask(2, 360), ask(5, undefined)]);
    const call = start(p, request(4, 2000));
    await clock.advance(4999);
    expect(call.done).toBe(false);
    await clock.advance(1);
    expect(call).toEqual({ done: true, missed: { methods: ['roots/list'], ms: 5000 } });
    // The next one still waits for the ask recorded after the first call, and only for that one.
    const next = start(p, request(6, 3000));
    await clock.advance(10);
    expect(next.done).toBe(false);
    p.asked();
    await clock.advance(0);
    expect(next).toEqual({ done: true, missed: undefined });
  });

  it('does not wait for requests of exchanges verify skips', async () => {
    const { clock, pacer: p } = pacer([ask(3, 360, 1)], {}, new Set([1]));
    const call = start(p, request(5, 2000, 2));
    await clock.advance(0);
    expect(call).toEqual({ done: true, missed: undefined });
  });

  it('keeps every recorded gap between client messages with recorded timing, less the time already spent', async () => {
    const { clock, pacer: p } = pacer([], { timing: 'recorded' });
    p.sent(request(1, 0));
    await clock.advance(300);
    const call = start(p, request(2, 1000));
    await clock.advance(699);
    expect(call.done).toBe(false);
    await clock.advance(1);
    expect(call.done).toBe(true);
  });

  it('divides the recorded gaps by a speed factor', async () => {
    const { clock, pacer: p } = pacer([], { timing: 4 });
    p.sent(request(1, 0));
    const call = start(p, request(2, 1000));
    await clock.advance(249);
    expect(call.done).toBe(false);
    await clock.advance(1);
    expect(call.done).toBe(true);
  });
});
