import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSuite, NO_BROWSER, shown, waitForCount } from './browser.js';
import { writeManyCalls } from './more-traces.js';
import { hashOf, SIZES, STDIO_SESSION, unfold, ViewPages } from './view-page.js';

/**
 * Closing a trace added beside the one open, on a laptop and on a phone: a real button per trace, reached by
 * keyboard; the trace's rows leave every view and its tools leave the filter bar; a selection elsewhere stays.
 */

/** What the views and the filter bar show, read from the page. */
async function counts(page: Page) {
  await page.locator('.status[data-loaded="yes"]').waitFor();
  return {
    rows: Number(await page.locator('.timeline').getAttribute('data-count')),
    status: await shown(page.locator('.status .loaded')),
    calls: await shown(page.locator('.tab[data-view="calls"] .n')),
    tools: await page
      .locator('#tool-names option')
      .evaluateAll((list) => list.map((o) => (o as unknown as { value: string }).value)),
    methods: await page
      .locator('select[aria-label="method"] option')
      .evaluateAll((list) => list.map((o) => (o as unknown as { value: string }).value)),
  };
}

/** The name of the element that has the keyboard. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = (
      globalThis as unknown as {
        document: {
          activeElement: {
            getAttribute(n: string): string | null;
            className: string;
            textContent: string;
          } | null;
        };
      }
    ).document.activeElement;
    return el ? (el.getAttribute('aria-label') ?? `${el.className}: ${el.textContent}`) : '';
  });

describe.skipIf(NO_BROWSER !== undefined)(`closing a trace in the viewer ${NO_BROWSER ?? ''}`, () => {
  const suite = browserSuite('tapedeck-viewer-close-');
  const pages = new ViewPages(suite);

  for (const size of SIZES) {
    describe(`on a ${size.name} (${size.width}×${size.height})`, () => {
      it('closes an added trace by keyboard: its rows, calls and tools leave, the selection in the other stays', async () => {
        const page = await pages.open([STDIO_SESSION], '#/timeline', size);
        const alone = await counts(page);
        // One trace: nothing to close it to, so no close button.
        expect(await page.locator('.source-close').count()).toBe(0);

        // A row of the trace that stays, selected.
        const row = page.locator('.timeline .row[data-key^="0."]').nth(3);
        const key = await row.getAttribute('data-key');
        await row.click();
        expect(hashOf(page)).toContain(`sel=${key}`);

        await page.setInputFiles('input[aria-label="add trace files"]', writeManyCalls(suite.dir()));
        await page.locator('.top .source >> nth=1').waitFor();
        await waitForCount(page, '.timeline', alone.rows + 2004);
        const both = await counts(page);
        expect(both.status).toMatch(/^2 traces/);
        expect(both.tools).toEqual(expect.arrayContaining(['flaky', 'broken', 'echo']));
        expect(Number(both.calls)).toBe(Number(alone.calls) + 1002);
        // Each trace has its close button now, named after it.
        const close = page.getByRole('button', { name: 'Close many.jsonl' });
        expect(await page.getByRole('button', { name: 'Close everything-stdio.jsonl' }).count()).toBe(1);
        expect(await close.isVisible()).toBe(true);

        // Reached by keyboard from the trace's name, pressed with Enter.
        await page.locator('.chip[data-source="1"] .source').focus();
        await page.keyboard.press('Tab');
        expect(await focused(page)).toBe('Close many.jsonl');
        await page.keyboard.press('Enter');

        await waitForCount(page, '.timeline', alone.rows);
        expect(await counts(page)).toEqual(alone);
        expect(await page.locator('.top .source').allInnerTexts()).toEqual(['everything-stdio.jsonl']);
        expect(await page.locator('.source-close').count()).toBe(0);
        expect(await page.locator('.timeline .row[data-key^="1."]').count()).toBe(0);
        // The selection was the other trace's: it stays, in the link and in the detail pane.
        expect(hashOf(page)).toContain(`sel=${key}`);
        expect(await page.locator(`.timeline .row.sel[data-key="${key}"]`).count()).toBe(1);
        await page.locator('.detail').waitFor();
        // The keyboard is not lost: on the trace left where the traces show, else on the list.
        expect(await focused(page)).toMatch(size.name === 'phone' ? /^timeline$/ : /everything-stdio\.jsonl/);

        // The waterfall and the Tools view hold only the trace left.
        await page.locator('.tab[data-view="waterfall"]').click();
        await page.locator('.wf-summary').waitFor();
        await page.locator('main [data-key^="0."]').first().waitFor();
        expect(await page.locator('main [data-key^="1."]').count()).toBe(0);
        await page.locator('.tab[data-view="tools"]').click();
        const tools = await shown(page.locator('main .tools'));
        expect(tools).toContain('echo');
        expect(tools).not.toContain('flaky');
      });

      it('clears a selection and a filter only the closed trace answered, and closes by pointer', async () => {
        const many = writeManyCalls(suite.dir());
        const page = await pages.open([STDIO_SESSION, many], '#/timeline?tool=flaky', size);
        const filtered = Number(await page.locator('.timeline').getAttribute('data-count'));
        expect(filtered).toBe(2000);
        const row = page.locator('.timeline .row[data-key^="1."]').first();
        const key = await row.getAttribute('data-key');
        await row.click();
        expect(hashOf(page)).toContain(`sel=${key}`);
        await page.locator('.detail').waitFor();

        await page.getByRole('button', { name: 'Close many.jsonl' }).click();
        await expect.poll(() => page.locator('.top .source').count()).toBe(1);
        expect(hashOf(page)).not.toContain('sel=');
        expect(hashOf(page)).not.toContain('tool=');
        expect(await page.locator('.detail').count()).toBe(0);
        const alone = await pages.open([STDIO_SESSION], '#/timeline', size);
        const rows = Number(await alone.locator('.timeline').getAttribute('data-count'));
        await waitForCount(page, '.timeline', rows);
        await unfold(page);
        expect(await page.locator('input[aria-label="tool"]').inputValue()).toBe('');
      });

      it('closes one of the traces a page opened with, keeping the other closable ones', async () => {
        const many = writeManyCalls(suite.dir());
        const page = await pages.open([STDIO_SESSION, many], '#/calls', size);
        expect(await page.locator('.source-close').count()).toBe(2);
        await page.getByRole('button', { name: 'Close everything-stdio.jsonl' }).click();
        await expect.poll(() => page.locator('.top .source').allInnerTexts()).toEqual(['many.jsonl']);
        expect(await shown(page.locator('.tab[data-view="calls"] .n'))).toBe('1002');
        expect(await page.locator('.source-close').count()).toBe(0);
        // The trace left keeps its index: its rows' links stay as they were.
        expect(await page.locator('.calls .row[data-key^="1."]').count()).toBeGreaterThan(0);
        expect(await page.locator('.calls .row[data-key^="0."]').count()).toBe(0);
      });
    });
  }
});
