import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { traceFilesFor } from '../../src/cli/commands/view.js';
import { TraceIndex } from '../../src/cli/paged/trace-index.js';
import { startViewServer, type ViewServer, viewFiles } from '../../src/cli/view-server.js';
import { blockOutside, collectErrors, launchBrowser, NO_BROWSER, SCREENSHOTS, shown } from './browser.js';
import { expectedRows, MCP_TAPE } from './traces.js';

const VIEWPORTS = [
  { name: 'wide', width: 1280, height: 800 },
  { name: 'narrow', width: 390, height: 844 },
] as const;

/** A trace of `calls` tool calls, one every 10 ms, each answered 3–19 ms later; every 97th fails. */
function manyCalls(path: string, calls: number): void {
  const t0 = Date.parse('2026-12-01T10:00:00.000Z');
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  const lines = [
    JSON.stringify({ v: 1, type: 'meta', startedAt: at(0), label: 'many', kind: 'mcp', transport: 'stdio' }),
  ];
  for (let id = 1; id <= calls; id++) {
    const request = {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: `tool_${id % 7}`, arguments: { n: id } },
    };
    const result = { content: [{ type: 'text', text: `answer ${id}` }], isError: id % 97 === 0 };
    lines.push(
      JSON.stringify({ t: at(id * 10), seq: id * 2 - 1, dir: 'in', raw: request }),
      JSON.stringify({
        t: at(id * 10 + 3 + (id % 17)),
        seq: id * 2,
        dir: 'out',
        raw: { jsonrpc: '2.0', id, result },
      }),
    );
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

describe.skipIf(NO_BROWSER !== undefined)(
  `a paged trace in the viewer, in Chromium ${NO_BROWSER ?? ''}`,
  () => {
    let browser: Browser;
    let dir: string;
    let many: string;
    const servers: ViewServer[] = [];
    const pages: Page[] = [];
    const problems: string[][] = [];

    beforeAll(async () => {
      browser = await launchBrowser();
      dir = mkdtempSync(join(tmpdir(), 'tapedeck-viewer-paged-'));
      many = join(dir, 'many.jsonl');
      manyCalls(many, 20_000);
    });
    afterEach(async () => {
      for (const page of pages.splice(0)) await page.close();
      for (const server of servers.splice(0)) await server.close();
      expect(problems.splice(0).flat()).toEqual([]);
    });
    afterAll(async () => {
      await browser?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    /** `tapedeck view --paged` in process: the trace indexed by the server, the viewer asking for pages. */
    async function open(
      file: string,
      hash: string,
      viewport: { width: number; height: number },
    ): Promise<Page> {
      const files = viewFiles(await traceFilesFor([file]));
      const index = await TraceIndex.open(file, files);
      const server = await startViewServer({ files, paged: index });
      servers.push(server);
      const page = await browser.newPage({ viewport });
      pages.push(page);
      problems.push(await blockOutside(page), collectErrors(page));
      await page.goto(server.url.replace('#/timeline', hash));
      await page.locator('.status[data-loaded="yes"]').waitFor({ state: 'attached', timeout: 30_000 });
      return page;
    }

    const count = async (page: Page, list: string) =>
      Number(await page.locator(list).getAttribute('data-count'));

    /** On a phone the filters fold behind one button: unfold them. */
    async function unfold(page: Page): Promise<void> {
      const toggle = page.locator('.filters .more-toggle');
      if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) !== 'true')
        await toggle.click();
    }

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

    for (const viewport of VIEWPORTS) {
      describe(`at ${viewport.width}×${viewport.height}`, () => {
        it('shows the timeline a page at a time, the detail pane, and a row far away by its link', async () => {
          const page = await open(MCP_TAPE, '#/timeline', viewport);
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

          const big = await open(many, '#/timeline?sel=0.30001', viewport);
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

        it('searches and filters on the server, kept in the link, exported as the server writes it', async () => {
          const page = await open(many, '#/timeline', viewport);
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
          const page = await open(MCP_TAPE, '#/waterfall', viewport);
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
