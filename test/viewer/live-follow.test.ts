import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Collector, startCollector } from '../../src/collector/index.js';
import {
  blockOutside,
  collectErrors,
  launchBrowser,
  NO_BROWSER,
  SCREENSHOTS,
  shown,
  waitForCount,
} from './browser.js';
import { SIZES } from './view-page.js';

/**
 * A trace followed while it is recorded, on a laptop and a phone: at the end of the list new rows keep it at the end;
 * scrolled up or paused, it stays put and counts what arrived ("N new ↓"); the bar above says whether the snapshot
 * is still being read, the page is live, or it is reconnecting and where it will resume.
 */

const TOKEN = 'ef'.repeat(32);
const T0 = Date.parse('2026-11-30T12:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

/** Lines `from`..`to`: a tools/call `add` request and its answer per pair of seqs. */
function calls(from: number, to: number): string[] {
  const lines: string[] = [];
  for (let seq = from; seq <= to; seq++) {
    const id = Math.ceil(seq / 2);
    const raw =
      seq % 2 === 1
        ? { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add', arguments: { a: id, b: 1 } } }
        : { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: String(id + 1) }] } };
    lines.push(JSON.stringify({ t: at(seq * 10), seq, dir: seq % 2 === 1 ? 'in' : 'out', raw }));
  }
  return lines;
}

const META = JSON.stringify({
  v: 1,
  type: 'meta',
  startedAt: at(0),
  label: 'follow',
  kind: 'mcp',
  transport: 'stdio',
});

/** Where the timeline is scrolled: at its end, or how far from the top. */
async function scroll(page: Page): Promise<{ top: number; atEnd: boolean }> {
  return page.locator('.timeline').evaluate((el) => {
    const e = el as unknown as { scrollTop: number; clientHeight: number; scrollHeight: number };
    return { top: e.scrollTop, atEnd: e.scrollTop + e.clientHeight >= e.scrollHeight - 2 };
  });
}

describe.skipIf(NO_BROWSER !== undefined)(`following a live trace in the viewer ${NO_BROWSER ?? ''}`, () => {
  let browser: Browser;
  let dir: string;
  let collector: Collector;
  const pages: Page[] = [];
  const problems: string[][] = [];

  const start = (port = 0) =>
    startCollector({
      dbPath: join(dir, 'db', 'tapedeck.db'),
      token: TOKEN,
      port,
      live: { heartbeatMs: 1000 },
    });
  const append = async (id: string, lines: string[]) => {
    const response = await fetch(`${collector.url}/api/v1/traces/${id}/lines`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: `${lines.join('\n')}\n`,
    });
    expect(response.status).toBe(200);
  };
  const liveTrace = async () => {
    const created = await fetch(`${collector.url}/api/v1/traces/live`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ label: 'follow' }),
    });
    return ((await created.json()) as { id: string }).id;
  };

  beforeAll(async () => {
    browser = await launchBrowser();
    dir = mkdtempSync(join(tmpdir(), 'tapedeck-viewer-follow-'));
    collector = await start();
  });
  afterEach(async () => {
    for (const page of pages.splice(0)) await page.close();
    // The page may log the collector going away (a failed websocket); nothing else.
    const unexpected = problems
      .splice(0)
      .flat()
      .filter((p) => !/WebSocket connection to .* failed|ERR_CONNECTION_REFUSED/.test(p));
    expect(unexpected).toEqual([]);
  });
  afterAll(async () => {
    await collector?.close();
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const size of SIZES) {
    it(`on a ${size.name} (${size.width}×${size.height}): keeps the newest rows in view, counts what arrives out of view, pauses, and says where it resumes`, async () => {
      const id = await liveTrace();
      await append(id, [META, ...calls(1, 60)]);
      const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
      pages.push(page);
      problems.push(await blockOutside(page), collectErrors(page));
      await page.goto(`${collector.url}/#trace=${id}`);
      await waitForCount(page, '.timeline', 60);
      const bar = page.locator('.live-bar');
      await page.locator('.live-bar[data-phase="live"]').waitFor();
      expect(await shown(bar)).toContain('live · 0 new lines since opened');
      expect((await scroll(page)).atEnd).toBe(true);

      // At the end: new rows keep the list at its end.
      await append(id, calls(61, 70));
      await waitForCount(page, '.timeline', 70);
      expect((await scroll(page)).atEnd).toBe(true);
      await page.locator('.timeline .row[data-key="0.70"]').waitFor();
      expect(await shown(bar)).toContain('live · 10 new lines since opened');

      // Scrolled up: the list stays where the user is, and counts what arrived below.
      await page.locator('.timeline').evaluate((el) => {
        (el as unknown as { scrollTop: number }).scrollTop = 0;
      });
      await page.waitForTimeout(100);
      await append(id, calls(71, 75));
      await waitForCount(page, '.timeline', 75);
      const marker = page.locator('.timeline .new-rows');
      await marker.waitFor();
      expect(await shown(marker)).toBe('5 new ↓');
      expect((await scroll(page)).top).toBe(0);
      if (size.name === 'desktop') await page.screenshot({ path: join(SCREENSHOTS, 'live.png') });
      await marker.click();
      await page.waitForTimeout(100);
      expect((await scroll(page)).atEnd).toBe(true);
      expect(await marker.count()).toBe(0);

      // Paused: nothing moves, even at the end; following again jumps to the newest row.
      const toggle = page.locator('.live-bar .follow-toggle');
      expect(await toggle.getAttribute('aria-pressed')).toBe('true');
      await toggle.click();
      expect(await toggle.getAttribute('aria-pressed')).toBe('false');
      const paused = (await scroll(page)).top;
      await append(id, calls(76, 79));
      await waitForCount(page, '.timeline', 79);
      expect(await shown(marker)).toBe('4 new ↓');
      expect((await scroll(page)).top).toBe(paused);
      await toggle.click();
      await page.waitForTimeout(100);
      expect((await scroll(page)).atEnd).toBe(true);
      expect(await marker.count()).toBe(0);

      // The collector restarts: the bar says where the page will resume, then that it did.
      const port = collector.port;
      await collector.close();
      await page.locator('.live-bar[data-phase="reconnecting"]').waitFor();
      expect(await shown(bar)).toContain('reconnecting, will resume after line 79');
      collector = await start(port);
      await append(id, calls(80, 81));
      await waitForCount(page, '.timeline', 81);
      await page.locator('.live-bar[data-phase="live"]').waitFor();
      expect(await shown(bar)).toContain('resumed after line 79');
      expect((await scroll(page)).atEnd).toBe(true);

      await append(id, [
        JSON.stringify({ t: at(2000), type: 'end', durationMs: 2000, reason: 'process_exit' }),
      ]);
      await page.locator('.live-bar[data-phase="ended"]').waitFor();
      expect(await toggle.count()).toBe(0);
    });
  }
});
