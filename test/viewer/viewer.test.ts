import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  browserSuite,
  computedStyle,
  loaded,
  NO_BROWSER,
  SCREENSHOTS,
  shown,
  waitForCount,
} from './browser.js';
import { expectedRows, MCP_TAPE, MCPORTER, writeChangedCopy, writeRotatedTrace } from './traces.js';
import { ViewPages } from './view-page.js';

describe.skipIf(NO_BROWSER !== undefined)(
  `the web viewer, served by tapedeck view, in Chromium ${NO_BROWSER ?? ''}`,
  () => {
    // No page error, no console error, no request that left the machine, in any test.
    const suite = browserSuite('tapedeck-viewer-');
    const pages = new ViewPages(suite);
    /** As `tapedeck view` does: each trace checked, its rotated segments added. */
    const open = (files: string[], hash = '#/timeline', dark = false): Promise<Page> =>
      pages.open(files, hash, { width: 1360, height: 820 }, { dark });

    const count = async (page: Page, list: string) =>
      Number(await page.locator(list).getAttribute('data-count'));

    it('shows an mcp-tape trace row by row and a call with its arguments in the detail pane', async () => {
      const page = await open([MCP_TAPE]);
      expect(await count(page, '.timeline')).toBe(expectedRows(readFileSync(MCP_TAPE, 'utf8')));
      await page.locator('.timeline .row.k-request', { hasText: 'tools/call get-sum' }).click();
      const detail = page.locator('.detail');
      expect(await shown(detail.locator('h2'))).toContain('tools/call get-sum');
      const request = await shown(detail.locator('.section').first());
      expect(request).toContain('"a": 1');
      expect(request).toContain('"b": 2');
      expect(await shown(detail)).toContain('The sum of 1 and 2 is 3.');
      expect(new URL(page.url()).hash).toMatch(/^#\/timeline\?sel=0\.\d+$/);

      // A call with progress: its notifications sit under it, and the detail lists them.
      await page.fill('input[aria-label="tool"]', 'trigger-long-running-operation');
      await page.press('input[aria-label="tool"]', 'Enter');
      await waitForCount(page, '.timeline', 6);
      await page.locator('.timeline .row.k-request').click();
      expect(await page.locator('.timeline .row.k-notification .tree').count()).toBe(4);
      expect(await page.locator('.detail .children li').count()).toBe(4);
      await page.locator('.filters .clear').click();
      await waitForCount(page, '.timeline', expectedRows(readFileSync(MCP_TAPE, 'utf8')));
      // The selection stays, scrolled into view.
      await page.locator('.timeline .row.sel').waitFor();
      await page.screenshot({ path: join(SCREENSHOTS, 'timeline.png') });
    });

    it('merges an mcporter file with a rotated tapedeck trace, stitching its segments, errors marked red', async () => {
      const rotated = writeRotatedTrace(suite.dir());
      const page = await open([MCPORTER, rotated.files[1]!]);
      expect(await page.locator('.top .source').count()).toBe(2);
      expect(await count(page, '.timeline')).toBe(
        expectedRows(readFileSync(MCPORTER, 'utf8'), 'mcporter') + rotated.rows,
      );
      const failed = page.locator('.timeline .row.err');
      expect(await failed.count()).toBe(2);
      expect(await shown(failed.first())).toContain('tools/call divide');
      // The progress notification sits under the call it reports on.
      const progress = page.locator('.timeline .row.k-notification', { hasText: 'notifications/progress' });
      expect(await progress.locator('.tree').count()).toBe(1);
      expect(await shown(page.locator('.timeline .row.k-stderr'))).toContain(
        'calc-server listening on stdio',
      );
    });

    it('narrows the timeline with search, regex, tool and errors-only filters, all kept in the link', async () => {
      const rotated = writeRotatedTrace(suite.dir());
      const page = await open([MCP_TAPE, rotated.files[0]!]);
      const total = await count(page, '.timeline');
      await page.fill('input[aria-label="search"]', 'sum of 1 and 2');
      await page.press('input[aria-label="search"]', 'Enter');
      await waitForCount(page, '.timeline', 2);
      const titles = await page.locator('.timeline .row .c-title').allInnerTexts();
      expect(titles.map((t) => t.replace(/^↳\s*/, ''))).toEqual(['tools/call get-sum', 'tools/call get-sum']);

      // A regular expression: the add call by its argument, the divide call by its error message.
      await page.fill('input[aria-label="search"]', '"a":\\s*40\\b|division by');
      await page.check('.filters .check input[type="checkbox"] >> nth=0');
      await page.press('input[aria-label="search"]', 'Enter');
      await waitForCount(page, '.timeline', 4);
      expect(new URL(page.url()).hash).toContain('re=1');

      await page.fill('input[aria-label="search"]', '');
      await page.press('input[aria-label="search"]', 'Enter');
      await page.uncheck('.filters .check input[type="checkbox"] >> nth=0');
      await page.check('input[aria-label="errors only"]');
      await page.fill('input[aria-label="tool"]', 'divide');
      await page.press('input[aria-label="tool"]', 'Enter');
      await waitForCount(page, '.timeline', 2);
      expect(await count(page, '.timeline')).toBeLessThan(total);
      // The same link opens the same narrowed view.
      const again = await suite.visit(page.url());
      await loaded(again);
      expect(await count(again, '.timeline')).toBe(2);
      expect(await again.locator('input[aria-label="tool"]').inputValue()).toBe('divide');
    });

    it('lists tool calls in a sortable table and opens a deep link to one call', async () => {
      const page = await open([MCP_TAPE], '#/calls?sort=-latency');
      const first = page.locator('.calls-list .row').first();
      expect(await shown(first.locator('.c-tool'))).toBe('trigger-long-running-operation');
      await page.locator('.calls-head button', { hasText: 'Tool' }).click();
      expect(await shown(page.locator('.calls-list .row .c-tool').first())).toBe('echo');
      expect(new URL(page.url()).hash).toContain('sort=tool');
      await page.locator('.calls-list .row', { hasText: 'get-tiny-image' }).click();
      // A result with a base64 image shows the image itself.
      const image = page.locator('.detail .c-image img');
      await image.waitFor();
      expect(await image.getAttribute('src')).toMatch(/^data:image\/png;base64,iVBOR/);
      const link = new URL(page.url());
      await page.screenshot({ path: join(SCREENSHOTS, 'calls.png') });

      const again = await suite.visit(link.href);
      await loaded(again);
      expect(await shown(again.locator('.detail h2'))).toContain('get-tiny-image');
      expect(await shown(again.locator('.calls-list .row.sel .c-tool'))).toBe('get-tiny-image');
    });

    it('shows per-tool counts, percentiles and error rates with a latency chart', async () => {
      const rotated = writeRotatedTrace(suite.dir());
      const page = await open([rotated.files[1]!], '#/tools');
      const tools = page.locator('table.stats').first().locator('tbody tr');
      expect(await tools.allInnerTexts()).toEqual([
        expect.stringMatching(/^add\s+1\s+11 ms\s+11 ms\s+11 ms\s+0\s+0%/),
        expect.stringMatching(/^divide\s+1\s+4 ms\s+4 ms\s+4 ms\s+1\s+100%/),
      ]);
      expect(await page.locator('svg.chart').first().locator('circle.dot').count()).toBeGreaterThanOrEqual(2);
      const everything = await open([MCP_TAPE], '#/tools');
      await everything.screenshot({ path: join(SCREENSHOTS, 'tools.png'), fullPage: false });
    });

    it('marks a changed argument when two traces are compared', async () => {
      const changed = join(suite.dir(), 'everything-changed.jsonl');
      writeChangedCopy(changed);
      const page = await open([MCP_TAPE, changed], '#/diff');
      const rows = page.locator('.diff-list .row');
      expect(await page.locator('.diff-list .row[data-kind="changed"]').count()).toBe(1);
      expect(await shown(page.locator('.diff-list .row[data-kind="changed"]'))).toContain(
        'tools/call get-sum',
      );
      expect(await rows.count()).toBeGreaterThan(10);
      const argument = page.locator('.diff-detail tr[data-path="$.params.arguments.b"]');
      expect(await shown(argument.locator('.was'))).toBe('2');
      expect(await shown(argument.locator('.now'))).toBe('5');
      await page.screenshot({ path: join(SCREENSHOTS, 'diff.png') });
    });

    it('shows the raw JSONL with line numbers, and follows the dark theme', async () => {
      const page = await open([MCP_TAPE], '#/raw?line=5', true);
      const line = page.locator('.raw-line[data-line="5"]');
      expect(await line.getAttribute('class')).toContain('sel');
      const fifth = readFileSync(MCP_TAPE, 'utf8').split('\n')[4]!;
      expect(await shown(line.locator('code'))).toBe(fifth.slice(0, 600));
      const background = await computedStyle(page, 'body', 'backgroundColor');
      expect(background).toBe('rgb(21, 24, 30)');
      await page.goto(page.url().replace(/#.*$/, '#/timeline?sel=0.25'));
      await page.locator('.detail').waitFor();
      await page.screenshot({ path: join(SCREENSHOTS, 'timeline-dark.png') });
    });
  },
);
