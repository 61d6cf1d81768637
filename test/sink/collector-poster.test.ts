/**
 * The collector poster on a hand-moved clock: when a batch goes out, how long it waits between retries, when
 * close() gives up — asserted to the millisecond. The collector is a scripted fetch that notes the clock's time
 * of every request.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COLLECTOR_POSTER_DEFAULTS, CollectorPoster } from '../../src/sink/collector-poster.js';
import { ManualClock } from '../helpers/clock.js';

const TOKEN = 'ab'.repeat(32);
const TRACE = 'AAAAAAAAAAAAAAAA';

type Answer = Response | Error | 'hang';

/** A collector as a fetch: answers `script` in turn (then 200), and keeps each request's time and body. */
function scriptedCollector(clock: ManualClock, script: Answer[] = []) {
  const calls: { at: number; url: string; lines: string[] }[] = [];
  let aborted = 0;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const body = typeof init?.body === 'string' ? init.body : '';
    calls.push({ at: clock.elapsed, url: String(input), lines: body.split('\n').filter((l) => l !== '') });
    const answer = script.shift() ?? new Response('{"appended":1}', { status: 200 });
    if (answer === 'hang') {
      return new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => {
          aborted += 1;
          reject(new DOMException('aborted', 'AbortError'));
        });
      });
    }
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { fetch, calls, aborted: () => aborted };
}

const busy = (headers: Record<string, string> = {}) =>
  new Response('{"error":{"message":"busy"}}', { status: 503, headers });
const refused = () => new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });

function poster(clock: ManualClock, fetch: typeof globalThis.fetch, options = {}) {
  const warnings: string[] = [];
  const made = new CollectorPoster({
    url: 'http://127.0.0.1:7420',
    token: TOKEN,
    traceId: TRACE,
    fetch,
    scheduler: clock,
    warn: (message) => warnings.push(message),
    droppedLine: (count) => JSON.stringify({ type: 'event', name: 'dropped', count }),
    ...options,
  });
  return { poster: made, warnings };
}

const line = (n: number) => JSON.stringify({ seq: n, type: 'stderr', text: `line ${n}` });

describe('the collector poster on a hand-moved clock', () => {
  let clock: ManualClock;
  beforeEach(() => {
    clock = new ManualClock();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('sends a batch flushMs after its first line, with every line queued by then', async () => {
    const collector = scriptedCollector(clock);
    const { poster: p } = poster(clock, collector.fetch);
    p.push(line(1));
    await clock.advance(10);
    p.push(line(2));
    p.push(line(3));
    await clock.advance(COLLECTOR_POSTER_DEFAULTS.flushMs - 11);
    expect(collector.calls).toEqual([]);
    await clock.advance(1);
    expect(collector.calls).toEqual([
      {
        at: COLLECTOR_POSTER_DEFAULTS.flushMs,
        url: `http://127.0.0.1:7420/api/v1/traces/${TRACE}/lines`,
        lines: [line(1), line(2), line(3)],
      },
    ]);
    expect(p.stats).toEqual({ sent: 3, dropped: 0, retries: 0 });
  });

  it('sends at once when a batch is full by lines or by bytes, never more than a batch per POST', async () => {
    const collector = scriptedCollector(clock);
    const { poster: p } = poster(clock, collector.fetch, { batchLines: 3, batchBytes: 1024 });
    for (let n = 1; n <= 7; n += 1) p.push(line(n));
    // A full batch is sent on a zero-delay timer, with no time passing; the run that sends it sends the rest of
    // the queue too, a batch per POST.
    await clock.advance(0);
    expect(collector.calls.map((c) => [c.at, c.lines.length])).toEqual([
      [0, 3],
      [0, 3],
      [0, 1],
    ]);
    const big = 'x'.repeat(700);
    p.push(big);
    p.push(big);
    await clock.advance(COLLECTOR_POSTER_DEFAULTS.flushMs);
    // 1400 bytes do not fit a 1024-byte batch: one line each, the second sent straight after the first.
    expect(collector.calls.slice(3).map((c) => c.lines)).toEqual([[big], [big]]);
  });

  it('backs off exponentially between retries, from retryMinMs, with jitter in the upper half', async () => {
    const collector = scriptedCollector(clock, [busy(), busy(), refused(), busy()]);
    const { poster: p, warnings } = poster(clock, collector.fetch, { retryMinMs: 100, flushMs: 0 });
    // The lowest jitter: each wait is half its ceiling (100, 200, 400, 800 ms).
    vi.spyOn(Math, 'random').mockReturnValue(0);
    p.push(line(1));
    await clock.advance(1000);
    expect(collector.calls.map((c) => c.at)).toEqual([0, 50, 150, 350, 750]);
    expect(p.stats).toEqual({ sent: 1, dropped: 0, retries: 4 });
    expect(warnings).toEqual([
      'live view: cannot reach the collector at http://127.0.0.1:7420 (ECONNREFUSED); retrying',
    ]);
  });

  it('waits the whole ceiling at the highest jitter, and never longer than retryMaxMs', async () => {
    const collector = scriptedCollector(clock, [busy(), busy(), busy(), busy()]);
    const { poster: p } = poster(clock, collector.fetch, { retryMinMs: 100, retryMaxMs: 300, flushMs: 0 });
    vi.spyOn(Math, 'random').mockReturnValue(1);
    p.push(line(1));
    await clock.advance(2000);
    // Ceilings 100, 200, then 300 (capped) twice.
    expect(collector.calls.map((c) => c.at)).toEqual([0, 100, 300, 600, 900]);
  });

  it('honours Retry-After (capped at retryMaxMs) before its backoff', async () => {
    const collector = scriptedCollector(clock, [
      new Response('{"error":{"message":"slow down"}}', { status: 429, headers: { 'retry-after': '2' } }),
      new Response('', { status: 503, headers: { 'retry-after': '60' } }),
    ]);
    const { poster: p } = poster(clock, collector.fetch, { retryMinMs: 100, retryMaxMs: 5000, flushMs: 0 });
    vi.spyOn(Math, 'random').mockReturnValue(0);
    p.push(line(1));
    await clock.advance(20_000);
    // 2 s asked, then the 50 ms backoff; then 60 s asked, cut to 5 s, then 100 ms.
    expect(collector.calls.map((c) => c.at)).toEqual([0, 2050, 7150]);
    expect(p.stats.sent).toBe(1);
  });

  it('gives a batch up without retrying when the collector refuses it (4xx), and warns once', async () => {
    const collector = scriptedCollector(clock, [
      new Response('{"error":{"message":"no such trace"}}', { status: 404 }),
      new Response('{"error":{"message":"no such trace"}}', { status: 404 }),
    ]);
    const { poster: p, warnings } = poster(clock, collector.fetch, { flushMs: 0 });
    p.push(line(1));
    await clock.advance(0);
    p.push(line(2));
    await clock.advance(0);
    expect(collector.calls).toHaveLength(2);
    expect(p.stats).toEqual({ sent: 0, dropped: 2, retries: 0 });
    expect(warnings).toEqual([
      'live view: the collector answered 404: no such trace',
      'live view: the collector is not keeping up; lines are being dropped from it',
    ]);
  });

  it('drops lines past a full queue, counts them, and reports them in one line once lines flow again', async () => {
    const collector = scriptedCollector(clock, [busy()]);
    const { poster: p, warnings } = poster(clock, collector.fetch, { maxQueueLines: 3, retryMinMs: 100 });
    vi.spyOn(Math, 'random').mockReturnValue(0);
    p.push(line(0), true);
    for (let n = 1; n <= 6; n += 1) p.push(line(n));
    expect(p.stats.dropped).toBe(4);
    p.push(line(99), true); // essential: queued past the limit
    await clock.advance(COLLECTOR_POSTER_DEFAULTS.flushMs + 50);
    // The retry that succeeds reports the drops in the same run, before any later line.
    expect(collector.calls.map((c) => [c.at, c.lines])).toEqual([
      [25, [line(0), line(1), line(2), line(99)]],
      [75, [line(0), line(1), line(2), line(99)]],
      [75, [JSON.stringify({ type: 'event', name: 'dropped', count: 4 })]],
    ]);
    p.push(line(7));
    await clock.advance(COLLECTOR_POSTER_DEFAULTS.flushMs);
    expect(collector.calls.at(-1)?.lines).toEqual([line(7)]);
    expect(p.stats).toEqual({ sent: 6, dropped: 4, retries: 1 });
    expect(warnings).toEqual(['live view: the collector is not keeping up; lines are being dropped from it']);
  });

  it('close() delivers what is queued at once, without waiting out flushMs', async () => {
    const collector = scriptedCollector(clock);
    const { poster: p } = poster(clock, collector.fetch);
    p.push(line(1));
    p.push(line(2));
    const closing = p.close();
    await clock.advance(0);
    await closing;
    expect(clock.elapsed).toBe(0);
    expect(collector.calls.map((c) => c.lines)).toEqual([[line(1), line(2)]]);
    p.push(line(3));
    await clock.advance(1000);
    expect(collector.calls).toHaveLength(1);
  });

  it('close() gives up on a collector that never answers at exactly closeTimeoutMs, aborting the request', async () => {
    const collector = scriptedCollector(clock, ['hang']);
    const { poster: p } = poster(clock, collector.fetch, { closeTimeoutMs: 300 });
    for (let n = 1; n <= 5; n += 1) p.push(line(n));
    let closed = false;
    const closing = p.close().then(() => {
      closed = true;
    });
    await clock.advance(299);
    expect(closed).toBe(false);
    await clock.advance(1);
    await closing;
    expect(clock.elapsed).toBe(300);
    expect(collector.aborted()).toBe(1);
    expect(p.stats).toMatchObject({ sent: 0, dropped: 5 });
  });

  it('close() cuts the backoff against an unreachable collector short at the deadline', async () => {
    const collector = scriptedCollector(clock, Array.from({ length: 50 }, refused));
    const { poster: p } = poster(clock, collector.fetch, { closeTimeoutMs: 1000, retryMinMs: 100 });
    vi.spyOn(Math, 'random').mockReturnValue(0);
    for (let n = 1; n <= 5; n += 1) p.push(line(n));
    let closed = false;
    const closing = p.close().then(() => {
      closed = true;
    });
    await clock.advance(999);
    expect(closed).toBe(false);
    // Tries at 0, 50, 150, 350, 750 ms; the next backoff (800 ms) would end past the deadline.
    expect(collector.calls.map((c) => c.at)).toEqual([0, 50, 150, 350, 750]);
    await clock.advance(1);
    await closing;
    expect(p.stats).toMatchObject({ sent: 0, dropped: 5, retries: 5 });
    expect(collector.calls).toHaveLength(5);
  });
});
