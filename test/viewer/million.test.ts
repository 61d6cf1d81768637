import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { viewTraces } from '../../src/cli/commands/view.js';
import type { ViewServer } from '../../src/view/server.js';
import { memoryIo } from '../helpers/cli.js';
import { browserSuite, NO_BROWSER, shown } from './browser.js';
import { writeBigTrace } from './more-traces.js';

/**
 * A million messages, as `tapedeck view` is run on them: the command pages the trace by itself, and the first
 * rows, a row's detail, a search, the error counter and the waterfall all work while the browser holds a page at
 * a time. How fast is the benchmark's to say (bench/lib/viewer-big.mjs); what is asserted here is that it works,
 * and that the page stays within the memory a tab may take.
 */

const MESSAGES = 1_000_000;
/** Every 1000th call fails: 500 failing calls, each a red request and a red answer. */
const FAIL_EVERY = 1000;
/** The JS heap the page may use, ArrayBuffer backing stores included. */
const HEAP_BOUND = 150 * 1024 * 1024;

/** The V8 heap of a page, with its ArrayBuffer backing stores. */
async function heapOf(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  const heap = (await cdp.send('Runtime.getHeapUsage')) as {
    usedSize: number;
    embedderHeapUsedSize?: number;
    backingStorageSize?: number;
  };
  await cdp.detach();
  return heap.usedSize + (heap.embedderHeapUsedSize ?? 0) + (heap.backingStorageSize ?? 0);
}

describe.skipIf(NO_BROWSER !== undefined)(`a million-message trace in the viewer ${NO_BROWSER ?? ''}`, () => {
  const suite = browserSuite('tapedeck-viewer-million-');
  let file = '';
  beforeAll(async () => {
    file = await writeBigTrace(join(suite.dir(), 'million.jsonl'), MESSAGES, FAIL_EVERY);
  }, 60_000);

  it('opens paged by itself: first rows, a row’s detail, search, errors per call, the waterfall fitted', async () => {
    const io = memoryIo();
    const stop = new AbortController();
    let listening: (server: ViewServer) => void = () => {};
    const served = new Promise<ViewServer>((resolve) => {
      listening = resolve;
    });
    const running = viewTraces([file], { open: false }, io, { stop: stop.signal, onListening: listening });
    try {
      const server = await served;
      expect(`${io.stdout.text}${io.stderr.text}`).toContain('the trace is served a page at a time');
      const page = await suite.visit(server.url, { viewport: { width: 1280, height: 800 } });
      await page.locator('.timeline .row:not(.pending)').first().waitFor({ timeout: 20_000 });
      expect(await shown(page.locator('.top .badge'))).toBe('paged');

      // A row's detail, named like the row.
      await page.locator('.timeline .row[data-key="0.5"]').click();
      const detail = page.getByRole('region', { name: /tools\/call tool_3/ });
      await detail.waitFor();
      expect(await detail.getAttribute('data-key')).toBe('0.5');

      // Everything indexed: every row, and the 500 failing calls counted once each.
      await page.locator('.status[data-loaded="yes"]').waitFor({ state: 'attached', timeout: 50_000 });
      expect(await page.locator('.timeline').getAttribute('data-count')).toBe(String(MESSAGES));
      await page.locator(`.status .error-steps[data-errors="${MESSAGES / 2 / FAIL_EVERY}"]`).waitFor();
      await page.locator('.timeline').focus();
      await page.keyboard.press('e');
      // The first failing call, id 1000: its request is seq 1999, after the row selected.
      await page.locator('.timeline .row.sel[data-key="0.1999"]').waitFor();
      await page.keyboard.press('Shift+E');
      await page.locator('.timeline .row.sel[data-key="0.999999"]').waitFor();
      expect(await shown(page.locator('.status .error-steps'))).toContain('error 500 of 500');

      // A search the server runs over the file: the failed call and its request, which its answer names.
      await page.fill('input[aria-label="search"]', 'lookup 250000 failed');
      await page.press('input[aria-label="search"]', 'Enter');
      await page.locator('.timeline[data-count="2"]').waitFor({ timeout: 20_000 });
      await page.locator('.timeline .row[data-key="0.499999"]').waitFor();

      // The waterfall of a trace near three hours long fits the rows in view: bars, not slivers.
      await page.locator('.tab[data-view="waterfall"]').click();
      await page.fill('input[aria-label="search"]', '');
      await page.press('input[aria-label="search"]', 'Enter');
      const summary = page.locator('.wf-summary[data-axis="fit"]');
      await summary.waitFor({ timeout: 20_000 });
      expect(await shown(summary)).toMatch(
        /^500000 requests over 2 h 47 min · axis fitted to the rows in view/,
      );
      const row = page.locator('.wf-row[data-key="0.1"]');
      const track = (await row.locator('.wf-track').boundingBox())!;
      const bar = (await row.locator('.wf-bar').boundingBox())!;
      expect(bar.width).toBeGreaterThan(2);
      expect(bar.width / track.width).toBeLessThan(0.5);

      expect(await heapOf(page)).toBeLessThan(HEAP_BOUND);
    } finally {
      stop.abort();
      await running;
    }
  }, 120_000);
});
