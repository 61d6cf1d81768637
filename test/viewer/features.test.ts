import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Download, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ViewServer } from '../../src/view/server.js';
import { REPO_ROOT } from '../helpers/peers.js';
import { browserSuite, NO_BROWSER, SCREENSHOTS, shown } from './browser.js';
import { writeSteadyCalls } from './more-traces.js';
import { MCP_TAPE } from './traces.js';
import { SIZES, unfold, ViewPages, type Viewport } from './view-page.js';

const HTTP = join(REPO_ROOT, 'test', 'fixtures', 'viewer', 'everything-http-auth.jsonl');

describe.skipIf(NO_BROWSER !== undefined)(
  `the viewer's waterfall, insights, copy-as, export, progress and embed mode, in Chromium ${NO_BROWSER ?? ''}`,
  () => {
    const suite = browserSuite('tapedeck-viewer-features-');
    const pages = new ViewPages(suite);
    /** The page at a size, with the clipboard open to it (copy-as is read back from there). */
    const open = (files: string[], hash: string, viewport: Viewport, query = '') =>
      pages.open(files, hash, viewport, {
        query,
        context: { permissions: ['clipboard-read', 'clipboard-write'] },
      });

    const clipboard = (page: Page) => page.evaluate('navigator.clipboard.readText()') as Promise<string>;
    const hashHas = (page: Page, text: string) =>
      page.waitForFunction(`location.hash.includes(${JSON.stringify(text)})`);
    const hashLacks = (page: Page, text: string) =>
      page.waitForFunction(`!location.hash.includes(${JSON.stringify(text)})`);
    const downloaded = async (
      page: Page,
      click: () => Promise<void>,
    ): Promise<{ name: string; text: string }> => {
      const [file] = (await Promise.all([page.waitForEvent('download'), click()])) as [Download, undefined];
      return { name: file.suggestedFilename(), text: readFileSync((await file.path())!, 'utf8') };
    };

    for (const viewport of SIZES) {
      describe(`at ${viewport.width}×${viewport.height}`, () => {
        it('draws every request as a bar on one time axis, children nested, progress filled, zoomable', async () => {
          const page = await open([MCP_TAPE], '#/waterfall', viewport);
          const list = page.locator('.wf-list');
          const requests = Number(await list.getAttribute('data-count'));
          expect(await shown(page.locator('.wf-summary'))).toBe(`${requests} requests over 14.1 s`);
          // The long-running operation's bar spans about two of the trace's fourteen seconds, fully progressed.
          const long = page.locator('.wf-row', { hasText: 'tools/call trigger-long-running-operation' });
          const track = await long.locator('.wf-track').boundingBox();
          const bar = await long.locator('.wf-bar').boundingBox();
          expect(bar!.width / track!.width).toBeGreaterThan(0.1);
          expect(bar!.width / track!.width).toBeLessThan(0.2);
          expect(await long.locator('.wf-progress').getAttribute('style')).toContain('width: 100%');
          expect(await long.locator('.wf-mark.m-progress').count()).toBe(4);
          // A request the server made for a call sits under it, marked as tied by a guess.
          const sampling = page.locator('.wf-row', { hasText: 'sampling/createMessage' });
          expect(await sampling.locator('.wf-bar.guess').count()).toBe(1);
          const indent = async (row: typeof sampling) =>
            Number.parseFloat(
              (await row.locator('.wf-name').getAttribute('style'))!.replace(/.*padding-left:\s*/, ''),
            );
          expect(await indent(sampling)).toBeGreaterThan(
            await indent(page.locator('.wf-row', { hasText: 'tools/call trigger-sampling-request' })),
          );

          // Choosing a bar opens the detail pane, with the call's progress as a bar.
          await long.click();
          await page.locator('.detail .progress').waitFor();
          expect(await shown(page.locator('.detail .progress-text'))).toBe('4 / 4 · 100 %');
          expect(await page.locator('.detail [role="progressbar"]').getAttribute('aria-valuetext')).toBe(
            '4 / 4 · 100 %',
          );
          expect(new URL(page.url()).hash).toMatch(/^#\/waterfall\?sel=0\.\d+$/);
          await page.screenshot({
            path: join(SCREENSHOTS, viewport.name === 'desktop' ? 'waterfall.png' : 'waterfall-narrow.png'),
          });

          // Keys move through the bars.
          await page.locator('.wf-list').focus();
          await page.keyboard.press('ArrowDown');
          await page.locator('.detail h2', { hasText: 'trigger-sampling-request' }).waitFor();

          // Drag out a stretch of the overview: the view zooms to it, and the link keeps it.
          const overview = (await page.locator('.wf-overview').boundingBox())!;
          await page.mouse.move(overview.x + overview.width * 0.05, overview.y + overview.height / 2);
          await page.mouse.down();
          await page.mouse.move(overview.x + overview.width * 0.1, overview.y + overview.height / 2, {
            steps: 4,
          });
          await page.mouse.up();
          await hashHas(page, 'span=');
          const zoomed = Number(await list.getAttribute('data-count'));
          expect(zoomed).toBeLessThan(requests);
          expect(zoomed).toBeGreaterThan(0);
          expect(await shown(page.locator('.wf-summary'))).toMatch(new RegExp(`^${zoomed} requests? in `));
          await page.locator('button', { hasText: 'Whole trace' }).click();
          await hashLacks(page, 'span=');
          expect(Number(await list.getAttribute('data-count'))).toBe(requests);
          await page.locator('button', { hasText: 'Zoom in' }).click();
          await hashHas(page, 'span=');
        });

        it('keeps twenty thousand requests smooth: only the rows in view are drawn, any part of them reachable', async () => {
          const file = writeSteadyCalls(join(suite.dir(), `many-${viewport.name}.jsonl`), 20_000);
          const page = await open([file], '#/waterfall', viewport);
          const list = page.locator('.wf-list');
          expect(await list.getAttribute('data-count')).toBe('20000');
          expect(await page.locator('.wf-row').count()).toBeLessThan(120);
          await list.evaluate((el) => {
            el.scrollTop = el.scrollHeight / 2;
          });
          // Request id 10001 is the 10001st bar; its row key is its request's seq, 20001.
          await page.locator('.wf-row[data-key="0.20001"]').waitFor();
          expect(await page.locator('.wf-row').count()).toBeLessThan(120);
        });

        it('fits the axis to the rows in view on a long trace, bars instead of slivers, following the scroll', async () => {
          // 20,000 calls over 200 s, each answered in 3–19 ms: on the whole trace's axis a bar is a pixel at most.
          const file = writeSteadyCalls(join(suite.dir(), `long-${viewport.name}.jsonl`), 20_000);
          const page = await open([file], '#/waterfall', viewport);
          const summary = page.locator('.wf-summary');
          await page.locator('.wf-summary[data-axis="fit"]').waitFor();
          expect(await shown(summary)).toMatch(
            /^20000 requests over 3\.3 min · axis fitted to the rows in view: 0 ms – \d+ ms$/,
          );
          const widths = async (key: string) => {
            const row = page.locator(`.wf-row[data-key="${key}"]`);
            const track = (await row.locator('.wf-track').boundingBox())!;
            const bar = (await row.locator('.wf-bar').boundingBox())!;
            return { bar: bar.width, share: bar.width / track.width };
          };
          const fitted = await widths('0.5');
          expect(fitted.bar).toBeGreaterThan(3);
          expect(fitted.share).toBeLessThan(0.5);
          // Scrolled far down, the axis follows the rows now in view.
          await page.locator('.wf-list').evaluate((el) => {
            el.scrollTop = el.scrollHeight / 2;
          });
          await page.locator('.wf-row[data-key="0.20001"]').waitFor();
          await page.locator('.wf-summary', { hasText: /in view: 1:\d\d/ }).waitFor();
          // The whole trace when asked for (kept in the link), and back to the rows in view.
          await page.locator('button', { hasText: 'Whole trace' }).click();
          await hashHas(page, 'span=all');
          await page.locator('.wf-summary[data-axis="whole"]').waitFor();
          expect((await widths('0.20001')).bar).toBeLessThanOrEqual(2);
          await page.locator('button', { hasText: 'Fit rows' }).click();
          await hashHas(page, 'span=fit');
          await page.locator('.wf-summary[data-axis="fit"]').waitFor();
          expect((await widths('0.20001')).bar).toBeGreaterThan(3);
          await page.screenshot({
            path: join(
              SCREENSHOTS,
              viewport.name === 'desktop' ? 'waterfall-fit.png' : 'waterfall-fit-narrow.png',
            ),
          });
        });

        it('says where the tool time went, in one line and per tool', async () => {
          const page = await open([MCP_TAPE], '#/tools', viewport);
          const first = page.locator('.insight-lines li').first();
          expect(await shown(first)).toMatch(
            /^trigger-long-running-operation: 9\d % of tool time, p95 2\.0 s$/,
          );
          const box = await first.boundingBox();
          expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width);
          const row = page.locator('.tool-time tr[data-tool="trigger-long-running-operation"]');
          expect(await row.locator('td').allInnerTexts()).toEqual([
            'trigger-long-running-operation',
            expect.stringMatching(/^9\d %$/),
            '2.0 s',
            '2.0 s',
            '2.0 s',
            '1',
          ]);
          // Fourteen tools: the eight that took longest first, the rest a click away.
          expect(await page.locator('.tool-time tbody tr').count()).toBe(8);
          await page.locator('.insights button', { hasText: 'Show all 14 tools' }).click();
          expect(await page.locator('.tool-time tbody tr').count()).toBe(14);
          await page.locator('.insights').screenshot({
            path: join(SCREENSHOTS, viewport.name === 'desktop' ? 'tool-time.png' : 'tool-time-narrow.png'),
          });
          // A tool's name opens its calls.
          await row.locator('button').click();
          await hashHas(page, '#/calls?tool=trigger-long-running-operation');
        });

        it('copies a request as a JSON-RPC line, a curl command and a cassette, and saves the cassette', async () => {
          const page = await open([HTTP], '#/timeline', viewport);
          await page.locator('.timeline .row.k-request', { hasText: 'tools/call echo' }).click();
          const copy = page.locator('.detail .copy-as');
          await copy.locator('button', { hasText: 'JSON-RPC' }).click();
          await copy.locator('.copied', { hasText: 'Copied as JSON-RPC' }).waitFor();
          expect(JSON.parse(await clipboard(page))).toMatchObject({
            jsonrpc: '2.0',
            method: 'tools/call',
            params: { name: 'echo', arguments: { message: 'hello http' } },
          });
          await copy.locator('button', { hasText: 'curl' }).click();
          await copy.locator('.copied', { hasText: 'Copied as curl' }).waitFor();
          const curl = await clipboard(page);
          expect(curl).toContain('curl -N -X POST http://127.0.0.1:39211/mcp');
          expect(curl).toContain("-H 'authorization: [REDACTED:authorization-header]'");
          expect(curl).toContain("-H 'mcp-protocol-version: 2025-11-25'");
          expect(curl.split('\n')[0]).toMatch(/^# .* redacted in the trace/);
          await copy.locator('button', { hasText: /^cassette$/ }).click();
          await copy.locator('.copied', { hasText: 'Copied as cassette' }).waitFor();
          const cassette = (await clipboard(page))
            .trimEnd()
            .split('\n')
            .map((l) => JSON.parse(l) as { type?: string; raw?: { method?: string } });
          expect(cassette[0]!.type).toBe('meta');
          expect(cassette.at(-1)!.type).toBe('end');
          expect(cassette.map((l) => l.raw?.method).filter(Boolean)).toEqual([
            'initialize',
            'notifications/initialized',
            'tools/call',
          ]);
          const saved = await downloaded(page, () =>
            copy.locator('button', { hasText: 'Save cassette' }).click(),
          );
          expect(saved.name).toMatch(/^everything-http-auth-tools-call-\d+\.jsonl$/);
          expect(saved.text).toBe(`${cassette.map((l) => JSON.stringify(l)).join('\n')}\n`);
          if (viewport.name === 'phone') {
            const box = await copy.boundingBox();
            expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width);
          }

          // A stdio recording has no HTTP request to repeat: curl says why it is off.
          const stdio = await open([MCP_TAPE], '#/timeline', viewport);
          await stdio.locator('.timeline .row.k-request', { hasText: 'tools/call get-sum' }).click();
          const off = stdio.locator('.detail .copy-as button', { hasText: 'curl' });
          expect(await off.isDisabled()).toBe(true);
          expect(await off.getAttribute('title')).toContain('did not come over HTTP');
        });

        it('exports the filtered rows as JSONL and, for an HTTP recording, as HAR', async () => {
          const page = await open([HTTP], '#/timeline?tool=get-sum', viewport);
          await unfold(page);
          const jsonl = await downloaded(page, () =>
            page.locator('.export button', { hasText: 'Export JSONL' }).click(),
          );
          expect(jsonl.name).toBe('everything-http-auth-filtered.jsonl');
          const lines = jsonl.text
            .trimEnd()
            .split('\n')
            .map((l) => JSON.parse(l) as { type?: string; raw?: { method?: string; id?: number } });
          expect(lines[0]!.type).toBe('meta');
          expect(lines.filter((l) => l.raw !== undefined)).toHaveLength(2);
          expect(lines.find((l) => l.raw?.method)?.raw?.method).toBe('tools/call');
          const har = await downloaded(page, () =>
            page.locator('.export button', { hasText: 'Export HAR' }).click(),
          );
          expect(har.name).toBe('everything-http-auth-filtered.har');
          const entries = (
            JSON.parse(har.text) as { log: { entries: { request: { postData?: { text: string } } }[] } }
          ).log.entries;
          expect(entries).toHaveLength(1);
          expect(entries[0]!.request.postData!.text).toContain('get-sum');
          await page
            .locator('.export .export-note', { hasText: 'Saved everything-http-auth-filtered.har' })
            .waitFor();

          const stdio = await open([MCP_TAPE], '#/timeline', viewport);
          await unfold(stdio);
          await stdio.locator('.export button', { hasText: 'Export HAR' }).click();
          expect(await shown(stdio.locator('.export .export-note'))).toBe(
            'HAR is for HTTP recordings: no HTTP exchange among the rows shown',
          );
        });

        it('embeds: the view alone, a link to the full viewer, framed only where tapedeck view --embed allows', async () => {
          const page = await open([MCP_TAPE], '#/waterfall', viewport, '?embed=1');
          await page.locator('.wf-row').first().waitFor();
          for (const chrome of ['.top', '.filters', '.status'])
            expect(await page.locator(chrome).isVisible()).toBe(false);
          const link = page.locator('.embed-link');
          expect(await link.isVisible()).toBe(true);
          expect(await link.getAttribute('target')).toBe('_blank');
          expect(await link.getAttribute('href')).not.toContain('embed=1');

          // A page on another port (another origin) frames the viewer.
          const host: Server = createServer((req, res) => {
            const target = new URL(req.url ?? '/', 'http://x').searchParams.get('src') ?? '';
            res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
            res.end(
              '<!doctype html><body style="font: 14px system-ui; margin: 16px; background: #f5f6f8">' +
                '<h1 style="font-size: 18px; margin: 0 0 4px">Release 2.4 · nightly agent run</h1>' +
                '<p style="margin: 0 0 12px; color: #555">The MCP traffic of the run, from tapedeck view --embed</p>' +
                `<iframe src="${target}" width="${viewport.width - 40}" height="420" ` +
                'style="border: 1px solid #ccd; border-radius: 6px; background: #fff"></iframe></body>',
            );
          });
          await new Promise<void>((done) => host.listen(0, '127.0.0.1', done));
          suite.watch.closeAfter({ close: () => new Promise<void>((done) => host.close(() => done())) });
          const hostOrigin = `http://127.0.0.1:${(host.address() as { port: number }).port}`;
          const frameable = await pages.serve([MCP_TAPE], [hostOrigin]);
          const refusing = await pages.serve([MCP_TAPE]);
          // The framing page's console carries the browser's refusal of the second frame: read below, not an error.
          const framing = await suite.watch.watch(await (await suite.newContext({ viewport })).newPage(), {
            consoleErrors: false,
          });
          const refused: string[] = [];
          framing.on('console', (msg) => refused.push(msg.text()));
          const embed = (server: ViewServer) =>
            encodeURIComponent(server.url.replace('/#/timeline', '/?embed=1#/waterfall'));

          await framing.goto(`${hostOrigin}/?src=${embed(frameable)}`);
          const frame = framing.frameLocator('iframe');
          await frame.locator('.wf-row').first().waitFor();
          expect(await frame.locator('.top').isVisible()).toBe(false);
          if (viewport.name === 'desktop')
            await framing.screenshot({
              path: join(SCREENSHOTS, 'embed.png'),
              clip: { x: 0, y: 0, width: viewport.width, height: 520 },
            });

          await framing.goto(`${hostOrigin}/?src=${embed(refusing)}`);
          await framing.locator('iframe').waitFor({ state: 'attached' });
          await expect
            .poll(() => refused.some((text) => text.includes("frame-ancestors 'none'")), { timeout: 5000 })
            .toBe(true);
          // The frame holds the browser's refusal, not the viewer.
          expect(await framing.frameLocator('iframe').locator('.app').count()).toBe(0);
        });
      });
    }
  },
);
