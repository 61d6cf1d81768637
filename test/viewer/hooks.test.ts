import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSuite, NO_BROWSER, shown } from './browser.js';
import { SIZES, STDIO_SESSION, ViewPages } from './view-page.js';

/**
 * The hooks the viewer keeps for screen readers and for scripts, the same whether the trace is loaded whole or
 * served a page at a time: the timeline a grid of `role="row"` rows each with its message's `data-key`, the open
 * detail pane a named `role="region"` with the same `data-key`, the error counter's number in `data-errors`
 * (failing calls, counted by the browser or by the server that pages the trace).
 */
describe.skipIf(NO_BROWSER !== undefined)(`the viewer's stable hooks ${NO_BROWSER ?? ''}`, () => {
  const suite = browserSuite('tapedeck-viewer-hooks-');
  const pages = new ViewPages(suite);
  const size = SIZES[0]!;

  const modes: [string, () => Promise<Page>][] = [
    ['loaded whole', () => pages.open([STDIO_SESSION], '#/timeline', size)],
    ['served a page at a time', () => pages.openPaged(STDIO_SESSION, '#/timeline', size)],
  ];
  for (const [mode, open] of modes) {
    it(`holds in a trace ${mode}`, async () => {
      const page = await open();
      const grid = page.getByRole('grid', { name: 'timeline' });
      const rows = grid.getByRole('row');
      expect(await rows.count()).toBeGreaterThan(5);
      const keys = await rows.evaluateAll((els) => els.map((el) => el.getAttribute('data-key')));
      expect(keys.every((key) => key !== null && /^\d+\.\d+/.test(key))).toBe(true);

      // A row clicked: the detail pane carries its key and says what it shows.
      const third = rows.nth(2);
      const key = await third.getAttribute('data-key');
      await third.click();
      const region = page.getByRole('region', { name: /^detail of / });
      await page.locator(`[role="region"][data-key="${key}"]`).waitFor();
      expect(await third.getAttribute('aria-selected')).toBe('true');

      // The first failing call, reached with `e`: the selected row and the region name it.
      await grid.focus();
      await page.keyboard.press('Escape');
      await page.locator('[role="region"]').waitFor({ state: 'detached' });
      await page.keyboard.press('e');
      const failing = grid.locator('[role="row"][aria-selected="true"]', { hasText: 'no-such-tool' });
      await failing.waitFor();
      await page.getByRole('region', { name: /^detail of request tools\/call no-such-tool/ }).waitFor();
      expect(await region.getAttribute('data-key')).toBe(await failing.getAttribute('data-key'));

      // Two failing calls (each a red request and a red answer), counted per call.
      expect(await page.locator('.status [data-errors]').getAttribute('data-errors')).toBe('2');
      expect(await shown(page.locator('.status .error-steps'))).toContain('error 1 of 2');
    });
  }
});
