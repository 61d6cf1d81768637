import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSuite, NO_BROWSER, SCREENSHOTS, shown } from './browser.js';
import { writeSteadyCalls } from './more-traces.js';
import { expectedRows, MCP_TAPE } from './traces.js';
import { SIZES, STDIO_SESSION, unfold, ViewPages } from './view-page.js';

describe.skipIf(NO_BROWSER !== undefined)(
  `a paged trace in the viewer, in Chromium ${NO_BROWSER ?? ''}`,
  () => {
    const suite = browserSuite('tapedeck-viewer-paged-');
    const pages = new ViewPages(suite);
    let manyCalls: string | undefined;
    /** 20,000 calls, every 97th failing: written once, when a test first opens it. */
    const many = () => (manyCalls ??= writeSteadyCalls(join(suite.dir(), 'many.jsonl'), 20_000, 97));

    const count = async (page: Page, list: string) =>
      Number(await page.locator(list).getAttribute('data-count'));

    /** Scrolls a virtual list down until a row with `text` is drawn. */
    async function scrollTo(page: Page, list: string, row: string, text: string): Promise<void> {
      const target = page.locator(`${list} ${row}`, { hasText: text });
      for (let step = 0; step < 40 && (await target.count()) === 0; step++) {
        await page.locator(list).evaluate((el) => {
          el.scrollTop += el.clientHeight / 2;
        });
        await page.waitForTimeout(50);
      }
      await target.first().scrollIntoViewIfNeeded();
    }

    for (const viewport of SIZES) {
      describe(`at ${viewport.width}×${viewport.height}`, () => {
        it('shows the timeline a page at a time, the detail pane, and a row far away by its link', async () => {
          const page = await pages.openPaged(MCP_TAPE, '#/timeline', viewport);
          expect(await count(page, '.timeline')).toBe(expectedRows(readFileSync(MCP_TAPE, 'utf8')));
          expect(await shown(page.locator('.status .loaded'))).toBe(
            '1 trace · 78 rows · served a page at a time',
          );
          expect(await shown(page.locator('.top .badge'))).toBe('paged');
          // On a phone a row takes two lines: the call is further down.
          await scrollTo(page, '.timeline', '.row.k-request', 'trigger-long-running-operation');
          await page
            .locator('.timeline .row.k-request', { hasText: 'trigger-long-running-operation' })
            .click();
          await page.locator('.detail .progress-text', { hasText: '4 / 4 · 100 %' }).waitFor();
          expect(await shown(page.locator('.detail'))).toContain('Long running operation completed');
          expect(await page.locator('.detail .children li').count()).toBe(4);

          const big = await pages.openPaged(many(), '#/timeline?sel=0.30001', viewport);
          expect(await count(big, '.timeline')).toBe(40_000);
          // The link's row is fetched, scrolled to and selected, though its page was never shown.
          await big.locator('.timeline .row.sel[data-key="0.30001"]').waitFor();
          expect(await shown(big.locator('.detail h2'))).toContain('tools/call tool_');
          expect(await big.locator('.timeline .row').count()).toBeLessThan(120);
          await big.locator('.timeline').evaluate((el) => {
            el.scrollTop = 0;
          });
          await big.locator('.timeline .row[data-key="0.1"]').waitFor();
          await big.screenshot({ path: join(SCREENSHOTS, `paged-${viewport.name}.png`) });
        });

        it('counts failures per failing call and steps from call to call with e, as a trace read whole does', async () => {
          const page = await pages.openPaged(STDIO_SESSION, '#/timeline', viewport);
          const steps = page.locator('.status .error-steps');
          // Two failing calls, four red rows (each request and its answer): counted per call on the server.
          await page.locator('.status .error-steps[data-errors="2"]').waitFor();
          expect(await shown(steps)).toContain('2 errors');
          await page.locator('.timeline').focus();
          await page.keyboard.press('e');
          await page.locator('.status .error-steps', { hasText: 'error 1 of 2' }).waitFor();
          expect(await shown(page.locator('.timeline .row.sel .c-title'))).toContain(
            'tools/call no-such-tool',
          );
          // The next step leaves the call for the next one: never the first call's answer.
          await page.keyboard.press('e');
          await page.locator('.status .error-steps', { hasText: 'error 2 of 2' }).waitFor();
          expect(await shown(page.locator('.timeline .row.sel .c-title'))).toContain('resources/read');
          await page.keyboard.press('e');
          await page.locator('.status .error-steps', { hasText: 'error 1 of 2' }).waitFor();
          await page.keyboard.press('Shift+E');
          await page.locator('.status .error-steps', { hasText: 'error 2 of 2' }).waitFor();
          // The failed call's answer is the same failure as its request.
          await page.locator('.timeline .row[data-key="0.92"]').click();
          await page.locator('.status .error-steps', { hasText: 'error 1 of 2' }).waitFor();
          await page.keyboard.press('e');
          await page.locator('.timeline .row.sel[data-key="0.93"]').waitFor();

          // Thousands of rows the browser never holds: 20,000 calls, every 97th failing, each a red request
          // and a red answer, counted per call.
          const big = await pages.openPaged(many(), '#/timeline', viewport);
          const failed = Math.floor(20_000 / 97);
          await big.locator(`.status .error-steps[data-errors="${failed}"]`).waitFor();
          await big.locator('.timeline').focus();
          await big.keyboard.press('Shift+E');
          await big.locator('.status .error-steps', { hasText: `error ${failed} of ${failed}` }).waitFor();
          const last = 97 * failed;
          await big.locator(`.timeline .row.sel[data-key="0.${last * 2 - 1}"]`).waitFor();
          await big.keyboard.press('Shift+E');
          await big.locator(`.timeline .row.sel[data-key="0.${(last - 97) * 2 - 1}"]`).waitFor();
          // Errors only: the same calls, each still one failure.
          await unfold(big);
          await big.check('input[aria-label="errors only"]');
          await big.locator(`.timeline[data-count="${failed * 2}"]`).waitFor();
          await big.locator(`.status .error-steps[data-errors="${failed}"]`).waitFor();
        });

        it('searches and filters on the server, kept in the link, exported as the server writes it', async () => {
          const page = await pages.openPaged(many(), '#/timeline', viewport);
          await unfold(page);
          await page.fill('input[aria-label="tool"]', 'tool_3');
          await page.press('input[aria-label="tool"]', 'Enter');
          // A request and an answer per call of tool_3 (ids 3, 10, 17 …); the failed ones are every 97th id.
          const ids = Array.from({ length: 20_000 }, (_, i) => i + 1).filter((id) => id % 7 === 3);
          await page.locator(`.timeline[data-count="${ids.length * 2}"]`).waitFor();
          await page.check('input[aria-label="errors only"]');
          const failed = ids.filter((id) => id % 97 === 0).length;
          expect(failed).toBeGreaterThan(10);
          await page.locator(`.timeline[data-count="${failed * 2}"]`).waitFor();
          expect(await page.locator('.timeline .row.err').count()).toBeGreaterThan(0);
          await page.uncheck('input[aria-label="errors only"]');
          await page.fill('input[aria-label="search"]', 'answer 1234\\b');
          await page.check('.filters .check input[type="checkbox"] >> nth=0');
          await page.press('input[aria-label="search"]', 'Enter');
          // 1234 ≡ 2 (mod 7): not tool_3. The tool filter and the search together keep nothing.
          await page.locator('.filters .count', { hasText: /^0 of 40000 rows$/ }).waitFor();
          await page.fill('input[aria-label="tool"]', '');
          await page.press('input[aria-label="tool"]', 'Enter');
          await page.locator('.timeline[data-count="2"]').waitFor();
          expect(new URL(page.url()).hash).toContain('q=answer+1234');
          const href = await page.locator('.export a', { hasText: 'Export JSONL' }).getAttribute('href');
          expect(href).toMatch(/api\/paged\/export\?q=answer\+1234%5Cb&re=1$/);
        });

        it('draws the waterfall and the Tools figures from the server, and says which views need the whole trace', async () => {
          const page = await pages.openPaged(MCP_TAPE, '#/waterfall', viewport);
          await page.locator('.wf-row', { hasText: 'trigger-long-running-operation' }).waitFor();
          expect(await shown(page.locator('.wf-summary'))).toBe(
            `${await count(page, '.wf-list')} requests over 14.1 s`,
          );
          const long = page.locator('.wf-row', { hasText: 'tools/call trigger-long-running-operation' });
          expect(await long.locator('.wf-progress').getAttribute('style')).toContain('width: 100%');
          await page.locator('.tab[data-view="tools"]').click();
          const first = page.locator('.insight-lines li').first();
          await first.waitFor();
          expect(await shown(first)).toMatch(
            /^trigger-long-running-operation: 9\d % of tool time, p95 2\.0 s$/,
          );
          expect(await page.locator('svg.chart').count()).toBe(2);
          await page.locator('.tab[data-view="diff"]').click();
          expect(await shown(page.locator('.paged-note'))).toContain(
            'tapedeck view --no-paged everything-stdio.jsonl',
          );
        });
      });
    }
  },
);
