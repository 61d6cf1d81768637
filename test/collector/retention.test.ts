import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Collector, type CollectorOptions, startCollector } from '../../src/collector/index.js';
import { json, sampleTrace, TEST_TOKEN } from './helpers.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('collector retention', () => {
  let dir = '';
  let clock = Date.parse('2026-03-01T00:00:00Z');
  const running: Collector[] = [];
  const start = async (options: Partial<CollectorOptions> = {}) => {
    const collector = await startCollector({
      dbPath: join(dir, 'tapedeck.db'),
      token: TEST_TOKEN,
      port: 0,
      now: () => clock,
      ...options,
    });
    running.push(collector);
    return collector;
  };
  const put = async (collector: Collector, label: string, calls = 2) => {
    const response = await fetch(`${collector.url}/api/v1/traces?label=${label}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
      body: sampleTrace({ calls }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: string; trace: { bytes: number } };
  };
  const labels = async (collector: Collector) =>
    ((await json(fetch(`${collector.url}/api/v1/traces`))).traces as { label: string }[]).map((t) => t.label);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tapedeck-retention-'));
  });
  afterEach(async () => {
    for (const collector of running.splice(0)) await collector.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('deletes traces idle for longer than the age limit, at start and when it runs again', async () => {
    const first = await start();
    await put(first, 'oldest');
    clock += 12 * HOUR;
    await put(first, 'older');
    clock += 2 * DAY;
    await put(first, 'recent');
    await first.close();
    clock += HOUR;
    const second = await start({ retention: { maxAgeMs: DAY } });
    expect(await labels(second)).toEqual(['recent']);
    clock += DAY + HOUR;
    expect(second.retain()).toMatchObject({ removed: 1 });
    expect(await labels(second)).toEqual([]);
  });

  it('deletes the oldest traces until all of them fit in the size limit', async () => {
    const collector = await start();
    const sizes: number[] = [];
    for (const label of ['a', 'b', 'c', 'd']) {
      sizes.push((await put(collector, label, 5)).trace.bytes);
      clock += 1000;
    }
    const keepTwo = sizes[2]! + sizes[3]!;
    const limited = await start({ retention: { maxBytes: keepTwo + 10 } });
    expect(await labels(limited)).toEqual(['d', 'c']);
    const result = await json(fetch(`${limited.url}/api/v1/traces`));
    expect(result.traces.reduce((sum: number, t: { bytes: number }) => sum + t.bytes, 0)).toBeLessThanOrEqual(
      keepTwo + 10,
    );
  });
});
