import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSuite, NO_BROWSER, SCREENSHOTS, shown } from './browser.js';
import { SIZES, STDIO_SESSION, ViewPages } from './view-page.js';

/**
 * The viewer on a phone (390×844) beside a laptop (1280×800): nothing a row says is cut off at the right edge —
 * the latency, the summary, the error — tables that do not fit scroll sideways inside themselves (never the
 * page), tool names stay on one line, and the filters take one line until unfolded.
 */

type Rect = { left: number; right: number; top: number; bottom: number; width: number };

/** Where an element is, and whether its text fits inside it (no ellipsis, no overflow). */
async function measure(page: Page, selector: string): Promise<Rect & { fits: boolean }> {
  return page
    .locator(selector)
    .first()
    .evaluate((el) => {
      const e = el as unknown as {
        getBoundingClientRect(): Rect;
        scrollWidth: number;
        clientWidth: number;
      };
      const r = e.getBoundingClientRect();
      return {
        left: r.left,
        right: r.right,
        top: r.top,
        bottom: r.bottom,
        width: r.width,
        fits: e.scrollWidth <= e.clientWidth + 1,
      };
    });
}

/** The page itself never scrolls sideways. */
async function pageWidth(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
        .documentElement.scrollWidth,
  );
}

describe.skipIf(NO_BROWSER !== undefined)(`the viewer on narrow screens ${NO_BROWSER ?? ''}`, () => {
  const pages = new ViewPages(browserSuite('tapedeck-viewer-narrow-'));

  for (const size of SIZES) {
    describe(`on a ${size.name} (${size.width}×${size.height})`, () => {
      const open = (hash: string): Promise<Page> => pages.open([STDIO_SESSION], hash, size);

      it('shows each row’s latency whole, its summary, and a failed call’s error', async () => {
        const page = await open('#/timeline');
        expect(await pageWidth(page)).toBeLessThanOrEqual(size.width);
        const call = '.timeline .row.k-request:has-text("trigger-long-running-operation")';
        const latency = await measure(page, `${call} .lat-text`);
        expect(latency.right).toBeLessThanOrEqual(size.width);
        expect(latency.fits).toBe(true);
        expect(await shown(page.locator(`${call} .lat-text`))).toBe('2030 ms');
        const summary = await measure(page, `${call} .c-detail`);
        expect(summary.width).toBeGreaterThan(100);
        expect(summary.right).toBeLessThanOrEqual(size.width);
        expect(await shown(page.locator(`${call} .c-detail`))).toBe('duration=2, steps=4');

        // The failed call's answer: its error on screen.
        const failed = await open('#/timeline?tool=no-such-tool');
        const error = failed.locator('.timeline .row.k-response.err .c-detail');
        const text = await shown(error);
        expect(text).toContain('Tool no-such-tool not found');
        const at = await measure(failed, '.timeline .row.k-response.err .c-detail');
        expect(at.right).toBeLessThanOrEqual(size.width);
        expect(at.width).toBeGreaterThan(150);
        if (size.name === 'phone') await page.screenshot({ path: join(SCREENSHOTS, 'narrow-timeline.png') });
      });

      it('keeps the Calls table’s result and status on screen', async () => {
        const page = await open('#/calls?err=1');
        const row = '.calls-list .row.err';
        await page.locator(row).waitFor();
        expect(await shown(page.locator(`${row} .c-result`))).toContain('Tool no-such-tool not found');
        for (const cell of ['c-result', 'c-status', 'c-latency', 'c-tool']) {
          const r = await measure(page, `${row} .${cell}`);
          expect(r.right).toBeLessThanOrEqual(size.width);
          expect(r.width).toBeGreaterThan(30);
        }
      });

      it('keeps tool names on one line and scrolls the Tools table inside itself', async () => {
        const page = await open('#/tools');
        expect(await pageWidth(page)).toBeLessThanOrEqual(size.width);
        const names = await page
          .locator('table.stats >> nth=0')
          .locator('td.name')
          .evaluateAll((cells) => cells.map((c) => (c as unknown as { offsetHeight: number }).offsetHeight));
        expect(names).toHaveLength(7);
        const lineHeight = Math.min(...names);
        expect(Math.max(...names)).toBe(lineHeight);
        expect(lineHeight).toBeLessThan(32);
        const scroller = await page.locator('.table-scroll >> nth=0').evaluate((el) => {
          const e = el as unknown as { scrollWidth: number; clientWidth: number };
          return { scrolls: e.scrollWidth > e.clientWidth + 1, width: e.clientWidth };
        });
        expect(scroller.width).toBeLessThanOrEqual(size.width);
        // The whole table fits a laptop; on a phone it scrolls sideways inside its box.
        expect(scroller.scrolls).toBe(size.name === 'phone');
        // A table that scrolls says so under it, the tool-time table as the figures' one.
        for (const table of ['.tool-time-wrap', '.table-scroll >> nth=0'])
          expect(await page.locator(table).locator('.scroll-cue').count()).toBe(
            size.name === 'phone' ? 1 : 0,
          );
        if (size.name === 'phone') await page.screenshot({ path: join(SCREENSHOTS, 'narrow-tools.png') });
      });

      it('fits the filter bar on one line until its filters are unfolded', async () => {
        const page = await open('#/timeline');
        const bar = await measure(page, '.filters');
        // Header and filters take little: most of the screen is the list.
        expect((await measure(page, '.timeline')).top).toBeLessThan(100);
        const tool = page.locator('input[aria-label="tool"]');
        if (size.name === 'phone') {
          expect(bar.bottom - bar.top).toBeLessThan(44);
          expect(await tool.isVisible()).toBe(false);
          const toggle = page.locator('.filters .more-toggle');
          expect(await toggle.getAttribute('aria-expanded')).toBe('false');
          await toggle.click();
          expect(await tool.isVisible()).toBe(true);
          await page.locator('input[aria-label="errors only"]').check();
          expect(await shown(toggle)).toContain('Filters (1)');
          const open = await measure(page, '.filters');
          expect(open.bottom - open.top).toBeGreaterThan(bar.bottom - bar.top);
        } else {
          // A laptop shows every filter in the bar's one row.
          expect(await page.locator('.filters .more-toggle').isVisible()).toBe(false);
          expect(await tool.isVisible()).toBe(true);
          expect(bar.bottom - bar.top).toBeLessThan(44);
        }
      });
    });
  }
});
