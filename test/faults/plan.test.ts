import { describe, expect, it } from 'vitest';
import type { Scheduler, Timer } from '../../src/base/scheduler.js';
import { draw } from '../../src/faults/draw.js';
import { describeUnmatched, unmatchedRules } from '../../src/faults/match.js';
import { FaultPlan } from '../../src/faults/plan.js';
import { faultRules } from '../../src/faults/profile.js';

const echo = { method: 'tools/call', params: { name: 'echo', arguments: {} } };
const add = { method: 'tools/call', params: { name: 'add', arguments: {} } };
const list = { method: 'tools/list' };

/** The kinds of action each request got, in order. */
function kinds(plan: FaultPlan, requests: readonly { method: string; params?: unknown }[]): string[] {
  return requests.map((request) => {
    const decision = plan.decide(request as { method: string });
    if (decision === undefined) return '-';
    return decision.action?.kind ?? `latency ${decision.delayMs}`;
  });
}

/** A clock moved by hand. */
function manualClock(): Scheduler & { advance(ms: number): void } {
  let now = 1000;
  return {
    now: () => now,
    setTimeout: () => ({}) as Timer,
    clearTimeout: () => {},
    advance(ms) {
      now += ms;
    },
  };
}

describe('FaultPlan', () => {
  it('applies a fault to the requests its MATCH names, and only those', () => {
    const plan = new FaultPlan(faultRules(['drop@tools/call:echo']), { seed: 1 });
    expect(kinds(plan, [list, echo, add, echo])).toEqual(['-', 'drop', '-', 'drop']);
  });

  it('counts #NTH among the matching requests: #2 once, #2- from the second on', () => {
    expect(kinds(new FaultPlan(faultRules(['error#2']), { seed: 1 }), [list, echo, add, echo])).toEqual([
      '-',
      'error',
      '-',
      '-',
    ]);
    expect(
      kinds(new FaultPlan(faultRules(['error@tools/call#2-']), { seed: 1 }), [echo, list, add, echo]),
    ).toEqual(['-', '-', 'error', 'error']);
  });

  it('draws %PERCENT from the seed: the same seed gives the same faults, another seed others', () => {
    const requests = Array.from({ length: 200 }, () => echo);
    const run = (seed: number) => kinds(new FaultPlan(faultRules(['drop%30']), { seed }), requests);
    expect(run(7)).toEqual(run(7));
    expect(run(7)).not.toEqual(run(8));
    const dropped = run(7).filter((kind) => kind === 'drop').length;
    // 30% of 200, give or take what 200 draws vary by.
    expect(dropped).toBeGreaterThan(35);
    expect(dropped).toBeLessThan(85);
  });

  it('keeps one fault’s draws apart from the others’, so adding a fault reshuffles nothing', () => {
    const requests = Array.from({ length: 50 }, () => echo);
    const alone = kinds(new FaultPlan(faultRules(['drop%50']), { seed: 3 }), requests);
    const withLatency = new FaultPlan(faultRules(['drop%50', 'latency=5@tools/list']), { seed: 3 });
    expect(kinds(withLatency, requests)).toEqual(alone);
  });

  it('draws jitter from the seed within ±JITTER, and adds latency to another fault', () => {
    const plan = new FaultPlan(faultRules(['latency=100~40', 'error=-32000@tools/call:echo']), { seed: 9 });
    const delays: number[] = [];
    for (let i = 0; i < 30; i++) {
      const decision = plan.decide(i % 2 === 0 ? echo : list)!;
      delays.push(decision.delayMs);
      expect(decision.action).toEqual(i % 2 === 0 ? { kind: 'error', code: -32000 } : undefined);
    }
    for (const ms of delays) {
      expect(ms).toBeGreaterThanOrEqual(60);
      expect(ms).toBeLessThanOrEqual(140);
    }
    expect(new Set(delays).size).toBeGreaterThan(5);
    const again = new FaultPlan(faultRules(['latency=100~40', 'error=-32000@tools/call:echo']), { seed: 9 });
    expect(Array.from({ length: 30 }, (_, i) => again.decide(i % 2 === 0 ? echo : list)!.delayMs)).toEqual(
      delays,
    );
  });

  it('gives an answer one replacement: the first fault listed wins', () => {
    const plan = new FaultPlan(faultRules(['drop@tools/call', 'error']), { seed: 1 });
    expect(kinds(plan, [echo, list])).toEqual(['drop', 'error']);
  });

  it('gives tool-error to tools/call only', () => {
    expect(kinds(new FaultPlan(faultRules(['tool-error']), { seed: 1 }), [list, echo])).toEqual([
      '-',
      'tool-error',
    ]);
  });

  it('holds a fault with `after` back until that moment, and times a bare disconnect', () => {
    const clock = manualClock();
    const plan = new FaultPlan(
      faultRules([
        { kind: 'error', after: '2s' },
        { after: 5000, kind: 'disconnect' },
      ]),
      { seed: 1, scheduler: clock },
    );
    plan.start();
    expect(kinds(plan, [echo])).toEqual(['-']);
    clock.advance(2000);
    expect(kinds(plan, [echo])).toEqual(['error']);
    expect(plan.timed.map(({ rule }) => rule.afterMs)).toEqual([5000]);
  });

  it('says which MATCH names nothing a recording holds', () => {
    const rules = faultRules([
      'drop@tools/call:serch',
      'drop@tools/call:echo',
      'error@prompts/get',
      'latency=1@ping',
    ]);
    const requests = [echo, add, list];
    const unmatched = unmatchedRules(rules, requests, ['ping']);
    expect(unmatched.map((rule) => rule.source)).toEqual(['drop@tools/call:serch', 'error@prompts/get']);
    expect(describeUnmatched(unmatched[0]!, requests, "fault 'drop@tools/call:serch'")).toBe(
      "fault 'drop@tools/call:serch' names tool 'serch', which the cassette never asks for (it has: echo, add)",
    );
    expect(describeUnmatched(unmatched[1]!, requests, "fault 'error@prompts/get'")).toBe(
      "fault 'error@prompts/get' matches prompts/get, which the cassette never asks",
    );
  });

  it('draws numbers in [0, 1), fixed by seed, stream and position', () => {
    const values = Array.from({ length: 1000 }, (_, n) => draw(42, 0, n));
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    expect(draw(42, 0, 5)).toBe(values[5]);
    expect(draw(42, 1, 5)).not.toBe(values[5]);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    expect(mean).toBeGreaterThan(0.45);
    expect(mean).toBeLessThan(0.55);
  });
});
