import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSuite, computedStyle, NO_BROWSER, shown, waitForCount } from './browser.js';
import { writeManyCalls } from './more-traces.js';
import { box, HTTP_SESSION, hashOf, SIZES, STDIO_SESSION, ViewPages } from './view-page.js';

/**
 * Getting around a trace, on a laptop and on a phone: from one error to the next, the keyboard's way to the list,
 * what the footer counts, HTTP transport lines, search matches marked, raw lines wrapped, latency figures beside
 * their bars, a detail pane that can be resized, error rates coloured by how high they are.
 */

const selectedKey = (page: Page) => new URLSearchParams(hashOf(page).split('?')[1] ?? '').get('sel');

describe.skipIf(NO_BROWSER !== undefined)(`getting around a trace in the viewer ${NO_BROWSER ?? ''}`, () => {
  const suite = browserSuite('tapedeck-viewer-nav-');
  const pages = new ViewPages(suite);

  for (const size of SIZES) {
    describe(`on a ${size.name} (${size.width}×${size.height})`, () => {
      const open = (files: string[], hash: string): Promise<Page> => pages.open(files, hash, size);

      it('steps from one error to the next with e and Shift+E, and with the footer’s buttons', async () => {
        const page = await open([STDIO_SESSION], '#/timeline');
        const steps = page.locator('.status .error-steps');
        // Two failing calls, four red rows (each request and its answer): counted and stepped per call.
        expect(await shown(steps)).toContain('2 errors');
        expect(await steps.getAttribute('data-errors')).toBe('2');
        await page.locator('.timeline').focus();
        await page.keyboard.press('e');
        await page.locator('.timeline .row.sel.err').waitFor();
        expect(await shown(page.locator('.timeline .row.sel .c-title'))).toContain('tools/call no-such-tool');
        expect(await shown(steps)).toContain('error 1 of 2');
        // The next step leaves the call for the next one: never the first call's answer.
        await page.keyboard.press('e');
        await page.locator('.status .error-steps', { hasText: 'error 2 of 2' }).waitFor();
        expect(await shown(page.locator('.timeline .row.sel .c-title'))).toContain('resources/read');
        await page.keyboard.press('Shift+E');
        await page.locator('.status .error-steps', { hasText: 'error 1 of 2' }).waitFor();
        // Backwards from the first wraps to the last.
        await page.locator('.error-steps button[aria-label^="previous error"]').click();
        await page.locator('.status .error-steps', { hasText: 'error 2 of 2' }).waitFor();
        expect(await shown(page.locator('.timeline .row.sel .c-title'))).toContain('resources/read');
        expect(await shown(page.locator('.detail h2'))).toContain('resources/read');

        // The Calls view steps through its own list: the one failed call.
        const calls = await open([STDIO_SESSION], '#/calls');
        expect(await shown(calls.locator('.status .error-steps'))).toContain('1 error');
        await calls.locator('.error-steps button[aria-label^="next error"]').click();
        await calls.locator('.calls-list .row.sel.err').waitFor();
        expect(await shown(calls.locator('.calls-list .row.sel .c-tool'))).toBe('no-such-tool');
      });

      it('lists the keyboard shortcuts on ?, and puts them away with Escape', async () => {
        const page = await open([STDIO_SESSION], '#/timeline');
        await page.locator('.timeline').focus();
        await page.keyboard.press('?');
        const sheet = page.getByRole('dialog', { name: 'keyboard shortcuts' });
        await sheet.waitFor();
        expect(await shown(sheet)).toContain('next / previous failing call');
        await page.keyboard.press('Escape');
        await sheet.waitFor({ state: 'detached' });
      });

      it('reaches the list in one Tab stop through the skip link, then moves through it with the keys', async () => {
        const page = await open([STDIO_SESSION], '#/timeline');
        await page.keyboard.press('Tab');
        const skip = page.locator('.skip-link');
        expect(
          await skip.evaluate((el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement),
        ).toBe(true);
        expect(await shown(skip)).toBe('Skip to the list');
        // Visible while focused.
        expect((await skip.boundingBox())!.y).toBeGreaterThanOrEqual(0);
        await page.keyboard.press('Enter');
        const focusedRole = () =>
          page.evaluate(() =>
            (
              globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string } } }
            ).document.activeElement.getAttribute('role'),
          );
        expect(await focusedRole()).toBe('grid');
        await page.keyboard.press('ArrowDown');
        expect(selectedKey(page)).toBe('0.1');
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('ArrowDown');
        expect(selectedKey(page)).toBe('0.3');
        const list = page.locator('.timeline');
        expect(await list.getAttribute('aria-activedescendant')).toBe('row-0.3');
        await page.keyboard.press('End');
        expect(selectedKey(page)).toBe('0.end');
        await page.keyboard.press('Home');
        expect(selectedKey(page)).toBe('0.1');
        // Focus stays on the list while the detail pane follows the selection.
        expect(await focusedRole()).toBe('grid');
        await page.keyboard.press('Escape');
        expect(selectedKey(page)).toBeNull();
      });

      it('counts in the footer what the view shows: filtered rows, or calls in the Calls view', async () => {
        const page = await open([STDIO_SESSION], '#/timeline?tool=echo');
        const footer = page.locator('.status .loaded');
        const rows = Number(await page.locator('.timeline').getAttribute('data-count'));
        expect(rows).toBe(62);
        expect(await shown(footer)).toBe(`1 trace · 62 of 102 rows`);
        await page.locator('.tab[data-view="calls"]').click();
        await page.locator('.calls-list').waitFor();
        expect(await shown(footer)).toBe('1 trace · 31 of 37 calls');
        expect(await shown(page.locator('.filters .count'))).toBe('31 of 37 calls');
        const errors = await open([STDIO_SESSION], '#/calls?err=1');
        expect(await shown(errors.locator('.status .loaded'))).toBe('1 trace · 1 of 37 calls');
      });

      it('hides the HTTP envelope lines of an HTTP recording until asked', async () => {
        const page = await open([HTTP_SESSION], '#/timeline');
        const toggle = page.locator('input[aria-label="transport lines"]');
        if (size.name === 'phone') await page.locator('.filters .more-toggle').click();
        expect(await toggle.isChecked()).toBe(false);
        expect(await page.locator('.timeline .row.k-http').count()).toBe(0);
        const without = Number(await page.locator('.timeline').getAttribute('data-count'));
        await toggle.check();
        await waitForCount(page, '.timeline', without + 22);
        expect(hashOf(page)).toContain('tl=1');
        expect(await page.locator('.timeline .row.k-http').count()).toBeGreaterThan(0);
        // A stdio trace has nothing to hide: no switch.
        const stdio = await open([STDIO_SESSION], '#/timeline');
        if (size.name === 'phone') await stdio.locator('.filters .more-toggle').click();
        expect(await stdio.locator('input[aria-label="transport lines"]').count()).toBe(0);
      });

      it('marks search matches in the rows and in the detail pane’s JSON', async () => {
        const page = await open([STDIO_SESSION], '#/timeline?q=hello%2029');
        await waitForCount(page, '.timeline', 2);
        const marks = page.locator('.timeline .row mark.hit');
        expect(await marks.count()).toBeGreaterThanOrEqual(2);
        expect((await marks.allInnerTexts()).every((t) => t.toLowerCase() === 'hello 29')).toBe(true);
        await page.locator('.timeline .row.k-request').click();
        const json = page.locator('.detail .json mark.hit');
        await json.first().waitFor();
        expect(await shown(json.first())).toBe('hello 29');
        // A regular expression is marked as it matches.
        const regex = await open([STDIO_SESSION], '#/timeline?q=sum%20of%20%5Cd&re=1&sel=0.84');
        const hit = regex.locator('.detail mark.hit').first();
        await hit.waitFor();
        expect(await shown(hit)).toBe('sum of 2');
      });

      it('wraps raw lines on request, each as tall as its text', async () => {
        const page = await open([STDIO_SESSION], '#/raw?line=82');
        const cut = page.locator('.raw-line[data-line="82"]');
        expect((await cut.boundingBox())!.height).toBe(22);
        await page.locator('input[aria-label="wrap lines"]').check();
        expect(hashOf(page)).toContain('wrap=1');
        const line = page.locator('.raw-line.wrap[data-line="82"]');
        await line.waitFor();
        const height = (await line.boundingBox())!.height;
        expect(height).toBeGreaterThan(40);
        // The text fits its row: wrapped, not cut, not overflowing.
        const fits = await line.locator('code').evaluate((el, rowHeight) => {
          const e = el as unknown as { scrollWidth: number; clientWidth: number; scrollHeight: number };
          return e.scrollWidth <= e.clientWidth + 1 && e.scrollHeight <= rowHeight;
        }, height);
        expect(fits).toBe(true);
        expect(await shown(line.locator('code'))).toContain('hello 29');
      });

      it('puts latency figures beside their bars, never over them', async () => {
        const page = await open([STDIO_SESSION], '#/timeline');
        const row = page.locator('.timeline .row.k-request', { hasText: 'trigger-long' });
        const text = await row.locator('.lat-text').boundingBox();
        const bar = await row.locator('.bar').boundingBox();
        expect(text && bar).toBeTruthy();
        expect(bar!.x).toBeGreaterThanOrEqual(text!.x + text!.width);
        expect(await shown(row.locator('.lat-text'))).toBe('2030 ms');
      });

      it('resizes the detail pane by dragging or with the keys, and keeps the size', async () => {
        const page = await open([STDIO_SESSION], '#/timeline?sel=0.13');
        const stacked = size.width <= 900;
        const extent = async () => {
          const b = await box(page, '.detail');
          return stacked ? b.height : b.width;
        };
        const before = await extent();
        const handle = page.locator('.splitter');
        expect(await handle.getAttribute('aria-orientation')).toBe(stacked ? 'horizontal' : 'vertical');
        await handle.focus();
        await page.keyboard.press(stacked ? 'ArrowUp' : 'ArrowLeft');
        await page.keyboard.press(stacked ? 'ArrowUp' : 'ArrowLeft');
        expect(Math.round((await extent()) - before)).toBe(64);
        // Dragging the handle to 300 px from the far edge.
        const h = await box(page, '.splitter');
        const main = await box(page, 'main');
        await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
        await page.mouse.down();
        if (stacked) await page.mouse.move(h.x + h.width / 2, main.y + main.height - 300, { steps: 4 });
        else await page.mouse.move(main.x + main.width - 300, h.y + h.height / 2, { steps: 4 });
        await page.mouse.up();
        expect(Math.abs((await extent()) - 300)).toBeLessThan(3);
        // The next visit opens the pane at that size.
        await page.reload();
        await page.locator('.detail').waitFor();
        expect(Math.abs((await extent()) - 300)).toBeLessThan(3);
        await page.locator('.splitter').dblclick();
        expect(Math.abs((await extent()) - before)).toBeLessThan(3);
      });

      it('colours a tool’s error rate as strongly as it is high, and only the rate', async () => {
        const page = await open([writeManyCalls(suite.dir())], '#/tools');
        const flaky = page.locator('table.stats >> nth=0').locator('tbody tr', { hasText: 'flaky' });
        const broken = page.locator('table.stats >> nth=0').locator('tbody tr', { hasText: 'broken' });
        expect(await shown(flaky.locator('td.rate'))).toBe('0.1%');
        expect(await flaky.locator('td.rate').getAttribute('data-shade')).toBe('0.1');
        expect(await broken.locator('td.rate').getAttribute('data-shade')).toBe('1');
        const err = await computedStyle(page, '.err', 'color');
        // One failure in a thousand: the name and the counts stay plain; the rate is tinted, not red.
        for (const cell of ['td.name a, td.name button', 'td:nth-child(2)', 'td.rate']) {
          const color = await flaky
            .locator(cell)
            .first()
            .evaluate(
              (el) =>
                (
                  globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }
                ).getComputedStyle(el).color,
            );
          expect(color).not.toBe(err);
        }
        const tint = await flaky
          .locator('td.rate')
          .evaluate(
            (el) =>
              (
                globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
              ).getComputedStyle(el).backgroundColor,
          );
        expect(tint).not.toBe('rgba(0, 0, 0, 0)');
        expect(await broken.locator('td.rate').getAttribute('class')).toContain('strong');
      });
    });
  }
});
