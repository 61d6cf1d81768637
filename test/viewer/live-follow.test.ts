import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { NO_BROWSER, SCREENSHOTS, shown, waitForCount } from './browser.js';
import { collectorSuite } from './collector-page.js';
import { liveSession } from './live-session.js';
import { SIZES } from './view-page.js';

/**
 * A trace followed while it is recorded, on a laptop and a phone: at the end of the list new rows keep it at the end;
 * scrolled up or paused, it stays put and counts what arrived ("N new ↓"); the bar above says whether the snapshot
 * is still being read, the page is live, or it is reconnecting and where it will resume.
 */

const session = liveSession('2026-11-30T12:00:00.000Z', 'follow');
const calls = session.calls;

/** Where the timeline is scrolled: at its end, or how far from the top. */
async function scroll(page: Page): Promise<{ top: number; atEnd: boolean }> {
  return page.locator('.timeline').evaluate((el) => {
    const e = el as unknown as { scrollTop: number; clientHeight: number; scrollHeight: number };
    return { top: e.scrollTop, atEnd: e.scrollTop + e.clientHeight >= e.scrollHeight - 2 };
  });
}

describe.skipIf(NO_BROWSER !== undefined)(`following a live trace in the viewer ${NO_BROWSER ?? ''}`, () => {
  const suite = collectorSuite('tapedeck-viewer-follow-', 'ef'.repeat(32));
  const { append } = suite;

  for (const size of SIZES) {
    it(`on a ${size.name} (${size.width}×${size.height}): keeps the newest rows in view, counts what arrives out of view, pauses, and says where it resumes`, async () => {
      const id = await suite.liveTrace('follow');
      await append(id, [session.meta, ...calls(1, 60)]);
      const page = await suite.visit(`${suite.url()}/#trace=${id}`, {
        viewport: { width: size.width, height: size.height },
      });
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
      await suite.stop();
      await page.locator('.live-bar[data-phase="reconnecting"]').waitFor();
      expect(await shown(bar)).toContain('reconnecting, will resume after line 79');
      await suite.start();
      await append(id, calls(80, 81));
      await waitForCount(page, '.timeline', 81);
      await page.locator('.live-bar[data-phase="live"]').waitFor();
      expect(await shown(bar)).toContain('resumed after line 79');
      expect((await scroll(page)).atEnd).toBe(true);

      await append(id, [session.end(2000)]);
      await page.locator('.live-bar[data-phase="ended"]').waitFor();
      expect(await toggle.count()).toBe(0);
    });
  }
});
