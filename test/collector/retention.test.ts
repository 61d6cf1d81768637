import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CollectorApp, openCollectorApp } from '../../src/collector/app.js';
import type { CollectorOptions } from '../../src/collector/index.js';
import { ManualClock } from '../helpers/clock.js';
import { scratchDir } from '../helpers/scratch.js';
import { IN_PROCESS_URL, inProcessFetch, json, sampleTrace, TEST_TOKEN } from './helpers.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('collector retention', () => {
  let dir = '';
  let clock: ManualClock;
  const running: CollectorApp[] = [];
  /**
   * A collector in process on the test's clock: stored times, retention's "now" and its timer all read it. The
   * live hub's heartbeat, which the clock would otherwise beat every 15 s of the simulated days, is set apart.
   */
  const open = async (options: Partial<CollectorOptions> = {}) => {
    const collector = openCollectorApp({
      dbPath: join(dir, 'tapedeck.db'),
      token: TEST_TOKEN,
      scheduler: clock,
      live: { heartbeatMs: 365 * DAY },
      ...options,
    });
    running.push(collector);
    await collector.start();
    return collector;
  };
  const put = async (collector: CollectorApp, label: string, calls = 2) => {
    const response = await inProcessFetch(collector)(`${IN_PROCESS_URL}/api/v1/traces?label=${label}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
      body: sampleTrace({ calls }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: string; trace: { bytes: number } };
  };
  const labels = async (collector: CollectorApp) =>
    (
      (await json(inProcessFetch(collector)(`${IN_PROCESS_URL}/api/v1/traces`))).traces as { label: string }[]
    ).map((t) => t.label);

  beforeEach(() => {
    dir = scratchDir('tapedeck-retention-');
    clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
  });
  afterEach(async () => {
    for (const collector of running.splice(0)) await collector.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('deletes traces idle for longer than the age limit, at start and when it runs again', async () => {
    const first = await open();
    await put(first, 'oldest');
    await clock.advance(12 * HOUR);
    await put(first, 'older');
    await clock.advance(2 * DAY);
    await put(first, 'recent');
    await first.close();
    await clock.advance(HOUR);
    // Its own runs a month apart: this test runs it by hand.
    const second = await open({ retention: { maxAgeMs: DAY, intervalMs: 30 * DAY } });
    expect(await labels(second)).toEqual(['recent']);
    await clock.advance(DAY + HOUR);
    expect(await second.retain()).toMatchObject({ removed: 1 });
    expect(await labels(second)).toEqual([]);
  });

  it('runs again by itself every intervalMs, on the hour', async () => {
    const collector = await open({ retention: { maxAgeMs: DAY, intervalMs: HOUR } });
    await put(collector, 'a');
    await clock.advance(HOUR);
    await put(collector, 'b');
    // 'a' turns a day old at 24 h; the run at 24 h does not take it (not older than the limit yet), 25 h does.
    await clock.advance(23 * HOUR);
    expect(await labels(collector)).toEqual(['b', 'a']);
    await clock.advance(HOUR - 1);
    expect(await labels(collector)).toEqual(['b', 'a']);
    await clock.advance(1);
    expect(await labels(collector)).toEqual(['b']);
    await clock.advance(HOUR);
    expect(await labels(collector)).toEqual([]);
    expect(clock.pending().filter((timer) => timer.ms === HOUR)).toHaveLength(1);
    await collector.close();
    expect(clock.pending().filter((timer) => timer.ms === HOUR)).toEqual([]);
  });

  it('deletes the oldest traces until all of them fit in the size limit', async () => {
    const collector = await open();
    const sizes: number[] = [];
    for (const label of ['a', 'b', 'c', 'd']) {
      sizes.push((await put(collector, label, 5)).trace.bytes);
      await clock.advance(1000);
    }
    const keepTwo = sizes[2]! + sizes[3]!;
    await collector.close();
    const limited = await open({ retention: { maxBytes: keepTwo + 10 } });
    expect(await labels(limited)).toEqual(['d', 'c']);
    const result = await json(inProcessFetch(limited)(`${IN_PROCESS_URL}/api/v1/traces`));
    expect(result.traces.reduce((sum: number, t: { bytes: number }) => sum + t.bytes, 0)).toBeLessThanOrEqual(
      keepTwo + 10,
    );
  });
});
