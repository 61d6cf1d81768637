import { describe, expect, it } from 'vitest';
import type { Scheduler, Timer } from '../../src/base/scheduler.js';
import { deliverAnswer, malformedText, trickleBytes } from '../../src/faults/deliver.js';
import { FaultPlan } from '../../src/faults/plan.js';
import { faultRules } from '../../src/faults/profile.js';
import type { JsonObject } from '../../src/trace/jsonrpc.js';

/** A clock moved by hand: timers fire in order as it advances. */
function manualClock() {
  let now = 0;
  let timers: { at: number; run: () => void }[] = [];
  const scheduler: Scheduler = {
    now: () => now,
    setTimeout(run, ms) {
      const timer = { at: now + ms, run };
      timers.push(timer);
      return timer as unknown as Timer;
    },
    clearTimeout(timer) {
      timers = timers.filter((t) => t !== (timer as unknown));
    },
  };
  const advance = async (ms: number) => {
    const until = now + ms;
    for (;;) {
      timers.sort((a, b) => a.at - b.at);
      const next = timers[0];
      if (next === undefined || next.at > until) break;
      timers.shift();
      now = next.at;
      next.run();
      // Let the awaits a timer resolves run before the next one fires.
      for (let i = 0; i < 5; i++) await Promise.resolve();
    }
    now = until;
  };
  return { scheduler, advance };
}

const ANSWER: JsonObject = {
  jsonrpc: '2.0',
  id: 7,
  result: { content: [{ type: 'text', text: 'Echo: hi' }] },
};

/** What an outlet was asked to do, in order. */
function outlet(log: string[]) {
  return {
    pass: () => log.push('pass'),
    replace: (message: JsonObject) => log.push(`replace ${JSON.stringify(message)}`),
    sendText: (text: string) => log.push(`text ${text}`),
    text: () => JSON.stringify(ANSWER),
    trickle: (rate: number) => log.push(`trickle ${rate}`),
  };
}

const decide = (spec: string) =>
  new FaultPlan(faultRules([spec]), { seed: 1 }).decide({ method: 'tools/call', params: { name: 'echo' } })!;

describe('deliverAnswer', () => {
  it('carries each kind out through the outlet', () => {
    const cases: [string, string[]][] = [
      [
        'error=-32050',
        [
          `replace {"jsonrpc":"2.0","id":7,"error":{"code":-32050,"message":"Injected fault: error -32050 (tapedeck --fault error=-32050)"}}`,
        ],
      ],
      [
        'tool-error',
        [
          `replace {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Injected fault: the tool failed (tapedeck --fault tool-error)"}],"isError":true}}`,
        ],
      ],
      ['drop', []],
      ['duplicate', ['pass', 'pass']],
      ['malformed', [`text ${malformedText(JSON.stringify(ANSWER))}`]],
      ['slow-stream=300/s', ['trickle 300']],
    ];
    for (const [spec, expected] of cases) {
      const log: string[] = [];
      const { scheduler } = manualClock();
      deliverAnswer(decide(spec), 7, outlet(log), scheduler);
      expect(log, spec).toEqual(expected);
    }
  });

  it('holds the answer back for its latency, then carries the rest out', async () => {
    const log: string[] = [];
    const clock = manualClock();
    const plan = new FaultPlan(faultRules(['latency=250', 'error=-1']), { seed: 1 });
    deliverAnswer(plan.decide({ method: 'ping' })!, 7, outlet(log), clock.scheduler);
    await clock.advance(249);
    expect(log).toEqual([]);
    await clock.advance(1);
    expect(log).toHaveLength(1);
    expect(log[0]).toContain('"code":-1');
  });
});

describe('malformedText', () => {
  it('cuts an answer in half, never into JSON and never across lines', () => {
    const text = JSON.stringify(ANSWER);
    const cut = malformedText(text);
    expect(text.startsWith(cut)).toBe(true);
    expect(cut.length).toBe(Math.floor(text.length / 2));
    expect(() => JSON.parse(cut)).toThrow(SyntaxError);
    expect(malformedText('1')).toBe('{');
    expect(malformedText('{"a":\n"b"}')).not.toContain('\n');
  });
});

describe('trickleBytes', () => {
  it('writes a piece every 50 ms so the whole takes its size over the rate', async () => {
    const clock = manualClock();
    const pieces: { at: number; bytes: number }[] = [];
    const done = trickleBytes(
      new Uint8Array(100),
      200,
      (piece) => pieces.push({ at: clock.scheduler.now(), bytes: piece.length }),
      clock.scheduler,
    );
    for (let step = 0; step < 12; step++) await clock.advance(50);
    await done;
    // 200 B/s in 50 ms ticks: 10 bytes a piece, 10 pieces, the last 450 ms after the first.
    expect(pieces.map((p) => p.bytes)).toEqual(Array(10).fill(10));
    expect(pieces.at(-1)!.at - pieces[0]!.at).toBe(450);
  });
});
