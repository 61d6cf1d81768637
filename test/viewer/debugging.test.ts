import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { toolName } from '../../src/trace/index.js';
import { browserSuite, NO_BROWSER, SCREENSHOTS, shown, waitForCount } from './browser.js';
import { FLAKY_SLOW, writeLongChange, writeManyCalls, writeNotATrace } from './more-traces.js';
import { openModel, text } from './open-model.js';
import { MCP_TAPE } from './traces.js';
import { SIZES, STDIO_SESSION, ViewPages } from './view-page.js';

/**
 * What a developer chasing a failing agent run meets in the viewer, on a laptop and on a phone: places pairing
 * guessed shown as guesses, the slowest calls on the latency chart, traces added rather than replaced, long values
 * compared where they differ.
 */

/** Latencies of every echo call in the stdio session, paired in node. */
async function echoLatencies(): Promise<number[]> {
  const model = await openModel({ 'v/everything-stdio.jsonl': text(STDIO_SESSION) });
  return model.sources[0]!.exchanges.flatMap((e) =>
    toolName(e.request) === 'echo' && e.latencyMs !== undefined ? [e.latencyMs] : [],
  );
}

describe.skipIf(NO_BROWSER !== undefined)(`the viewer while debugging ${NO_BROWSER ?? ''}`, () => {
  const suite = browserSuite('tapedeck-viewer-debug-');
  const pages = new ViewPages(suite);

  for (const size of SIZES) {
    describe(`on a ${size.name} (${size.width}×${size.height})`, () => {
      const open = (files: string[], hash: string): Promise<Page> => pages.open(files, hash, size);

      it('shows a place pairing guessed as a guess, in the timeline and the detail pane', async () => {
        const page = await open([STDIO_SESSION], '#/timeline');
        // roots/list (asked and answered) and the log line after it: nothing on the stdio wire ties them to the
        // call they sit under.
        const guessed = page.locator('.timeline .row.guessed .c-title');
        expect((await guessed.allInnerTexts()).map((t) => t.replace(/[┆?↳\s]+/g, ' ').trim())).toEqual([
          'roots/list',
          'roots/list',
          'notifications/message',
        ]);
        const roots = page.locator('.timeline .row.guessed.k-request', { hasText: 'roots/list' });
        expect(await roots.locator('.tree').textContent()).toContain('┆');
        expect(await roots.locator('abbr.guess-mark').getAttribute('title')).toBe(
          'maybe part of tools/call #2: the request open when it was sent (nothing on the wire ties it)',
        );
        // Progress notifications carry the call's token: drawn as certain.
        const progress = page.locator('.timeline .row.k-notification', { hasText: 'notifications/progress' });
        expect(await progress.count()).toBe(4);
        expect(
          await page.locator('.timeline .row.guessed', { hasText: 'notifications/progress' }).count(),
        ).toBe(0);
        expect(await progress.first().locator('.tree').textContent()).toContain('└');

        await roots.click();
        const parent = page.locator('.detail .parent');
        expect(await parent.getAttribute('data-guess')).toBe('true');
        expect(await shown(parent)).toMatch(
          /Maybe belongs to tools\/call #2 — a guess: the request open when it was sent/,
        );
        await parent.locator('button').click();
        expect(await shown(page.locator('.detail h2'))).toContain(
          'tools/call trigger-long-running-operation',
        );
        const children = page.locator('.detail .children li');
        expect(await children.count()).toBe(6);
        expect(await page.locator('.detail .children li [data-guess="true"]').count()).toBe(2);
        expect(await shown(children.filter({ hasText: 'notifications/progress' }).first())).toContain(
          'via progressToken',
        );
        if (size.name === 'desktop') await page.screenshot({ path: join(SCREENSHOTS, 'guess.png') });

        // Sampling and elicitation requests over stdio: guesses too (right ones here, but nothing says so).
        const sampling = await open([STDIO_SESSION], '#/timeline?method=create');
        await waitForCount(sampling, '.timeline', 4);
        expect(await sampling.locator('.timeline .row.guessed').count()).toBe(4);
      });

      it('draws the slowest call of each tool on the latency chart, with a legend for its marks', async () => {
        const page = await open([STDIO_SESSION], '#/tools');
        const echo = page.locator('svg.chart').first().locator('g.series[data-series="echo"]');
        const drawn = await echo
          .locator('circle.dot')
          .evaluateAll((dots) =>
            dots.map((d) => Number((d as unknown as { dataset: { ms: string } }).dataset.ms)),
          );
        const latencies = await echoLatencies();
        expect(latencies).toHaveLength(31);
        expect(Math.max(...drawn)).toBe(Math.max(...latencies));
        expect(Math.min(...drawn)).toBe(Math.min(...latencies));
        const legend = await shown(page.locator('.chart-box .legend').first());
        expect(legend).toContain('p50 (median)');
        expect(legend).toContain('p95');
        // Drawn at the size of its box: its text is not shrunk to fit a phone.
        const svg = page.locator('svg.chart').first();
        const width = Number(await svg.getAttribute('width'));
        expect((await svg.boundingBox())!.width).toBeCloseTo(width, 0);
        expect(width).toBeLessThanOrEqual(size.width);

        // A thousand calls: 400 dots at most, the five slow ones among them.
        const many = await open([writeManyCalls(suite.dir())], '#/tools');
        const flaky = many.locator('svg.chart').first().locator('g.series[data-series="flaky"]');
        expect(Number(await flaky.getAttribute('data-dots'))).toBe(400);
        const dots = await flaky
          .locator('circle.dot:not(.err)')
          .evaluateAll((list) =>
            list.map((d) => Number((d as unknown as { dataset: { ms: string } }).dataset.ms)),
          );
        expect(dots.slice(-5)).toEqual(FLAKY_SLOW);
      });

      it('adds dropped and picked traces beside the open one, and refuses a file that is not a trace', async () => {
        const page = await open([MCP_TAPE], '#/timeline');
        const rows = Number(await page.locator('.timeline').getAttribute('data-count'));
        await page.setInputFiles('input[aria-label="add trace files"]', writeLongChange(suite.dir()));
        await page.locator('.top .source >> nth=1').waitFor();
        expect(await page.locator('.top .source').count()).toBe(2);
        await page.locator('.status[data-loaded="yes"]').waitFor();
        const both = Number(await page.locator('.timeline').getAttribute('data-count'));
        expect(both).toBeGreaterThan(rows);
        await page.locator('.tab[data-view="diff"] .n').waitFor();

        // Not a trace: a notice says so and what is open stays.
        await page.setInputFiles('input[aria-label="add trace files"]', writeNotATrace(suite.dir()));
        const notice = page.locator('.notices');
        await notice.waitFor();
        // One line, on a phone too: what failed, a details toggle and a dismiss button.
        expect(await shown(notice.locator('.summary'))).toContain('Could not open notes.md.');
        expect((await notice.locator('.notice-line').boundingBox())!.height).toBeLessThanOrEqual(36);
        expect(await notice.locator('ul').count()).toBe(0);
        await notice.locator('button.toggle').click();
        expect(await shown(notice)).not.toContain(suite.dir());
        expect(await shown(notice)).toMatch(/notes\.md: .*is in no format tapedeck reads/);
        expect(await shown(notice)).toContain('The open traces are kept.');
        expect(await page.locator('.top .source').count()).toBe(2);
        await waitForCount(page, '.timeline', both);

        // A drop adds too.
        await page.evaluate(
          (text) => {
            // The page's own DOM classes (this file is type-checked without the DOM library).
            const w = globalThis as unknown as {
              DataTransfer: new () => { items: { add(file: unknown): void } };
              File: new (parts: string[], name: string) => unknown;
              DragEvent: new (type: string, init: object) => unknown;
              document: { querySelector(selector: string): { dispatchEvent(event: unknown): void } };
            };
            const transfer = new w.DataTransfer();
            transfer.items.add(new w.File([text], 'dropped.jsonl'));
            const drop = new w.DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true });
            w.document.querySelector('.app').dispatchEvent(drop);
          },
          readFileSync(MCP_TAPE, 'utf8'),
        );
        await page.locator('.top .source >> nth=2').waitFor();
        expect(await page.locator('.top .source').allInnerTexts()).toEqual([
          expect.stringContaining('everything-stdio.jsonl'),
          expect.stringContaining('everything-changed.jsonl'),
          expect.stringContaining('dropped.jsonl'),
        ]);
        await page.locator('.notices .close').click();
        expect(await page.locator('.notices').count()).toBe(0);
      });

      it('centres a long changed value on its first difference in the diff', async () => {
        const page = await open([STDIO_SESSION, writeLongChange(suite.dir())], '#/diff?changes=1');
        const message = page.locator('.diff-detail tr[data-path="$.params.arguments.message"]');
        await message.waitFor();
        const was = message.locator('.was');
        const now = message.locator('.now');
        expect(await shown(was.locator('mark.changed'))).toMatch(/^x+$/);
        expect(await shown(now.locator('mark.changed'))).toMatch(/CHANGED/);
        // Both sides start at the same place before the change, cut there.
        expect(await was.locator('.cut').count()).toBe(2);
        const before = async (cell: typeof was) =>
          (await shown(cell)).replace(/\s/g, '').split(/CHANGED/)[0] ?? '';
        expect((await shown(was)).replace(/\s/g, '').startsWith('…x')).toBe(true);
        expect((await before(now)).length).toBeLessThan(80);
        const answer = page.locator(
          '.diff-detail tr[data-path="$.result.content[0].text"] .now mark.changed',
        );
        expect(await shown(answer)).toMatch(/CHANGED/);
        if (size.name === 'desktop') await page.screenshot({ path: join(SCREENSHOTS, 'diff-long.png') });
      });
    });
  }
});
