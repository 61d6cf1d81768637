import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Download, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { traceFilesFor } from '../../src/cli/commands/view.js';
import { startViewServer, type ViewServer, viewFiles } from '../../src/cli/view-server.js';
import { REPO_ROOT } from '../helpers/peers.js';
import {
  blockOutside,
  collectErrors,
  launchBrowser,
  loaded,
  NO_BROWSER,
  SCREENSHOTS,
  shown,
} from './browser.js';
import { MCP_TAPE } from './traces.js';

const HTTP = join(REPO_ROOT, 'test', 'fixtures', 'viewer', 'everything-http-auth.jsonl');

const VIEWPORTS = [
  { name: 'wide', width: 1280, height: 800 },
  { name: 'narrow', width: 390, height: 844 },
] as const;

/** A trace of `calls` tool calls, one every 10 ms, each answered 3–19 ms later. */
function manyCalls(path: string, calls: number): void {
  const t0 = Date.parse('2026-12-01T10:00:00.000Z');
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  const lines = [
    JSON.stringify({ v: 1, type: 'meta', startedAt: at(0), label: 'many', kind: 'mcp', transport: 'stdio' }),
  ];
  for (let id = 1; id <= calls; id++) {
    const sent = id * 10;
    lines.push(
      JSON.stringify({
        t: at(sent),
        seq: id * 2 - 1,
        dir: 'in',
        raw: {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: `tool_${id % 7}`, arguments: { n: id } },
        },
      }),
      JSON.stringify({
        t: at(sent + 3 + (id % 17)),
        seq: id * 2,
        dir: 'out',
        raw: { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `answer ${id}` }] } },
      }),
    );
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

describe.skipIf(NO_BROWSER !== undefined)(
  `the viewer's waterfall, insights, copy-as, export, progress and embed mode, in Chromium ${NO_BROWSER ?? ''}`,
  () => {
    let browser: Browser;
    let dir: string;
    const servers: { close(): Promise<void> }[] = [];
    const contexts: BrowserContext[] = [];
    const problems: string[][] = [];

    beforeAll(async () => {
      browser = await launchBrowser();
      dir = mkdtempSync(join(tmpdir(), 'tapedeck-viewer-features-'));
    });
    afterEach(async () => {
      for (const context of contexts.splice(0)) await context.close();
      for (const server of servers.splice(0)) await server.close();
      expect(problems.splice(0).flat()).toEqual([]);
    });
    afterAll(async () => {
      await browser?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    async function serve(files: string[], frameAncestors?: string[]): Promise<ViewServer> {
      const server = await startViewServer({
        files: viewFiles(await traceFilesFor(files)),
        ...(frameAncestors ? { frameAncestors } : {}),
      });
      servers.push(server);
      return server;
    }

    async function open(
      files: string[],
      hash: string,
      viewport: { width: number; height: number },
      query = '',
    ): Promise<Page> {
      const server = await serve(files);
      const context = await browser.newContext({
        viewport,
        permissions: ['clipboard-read', 'clipboard-write'],
      });
      contexts.push(context);
      const page = await context.newPage();
      problems.push(await blockOutside(page), collectErrors(page));
      await page.goto(server.url.replace('/#/timeline', `/${query}${hash}`));
      // Embed mode hides the status bar; it still says when everything is read.
      if (query.includes('embed=1'))
        await page.locator('.status[data-loaded="yes"]').waitFor({ state: 'attached', timeout: 20_000 });
      else await loaded(page);
      return page;
    }

    /** On a phone the filters (and the export buttons with them) fold behind one button: unfold them. */
    async function unfold(page: Page): Promise<void> {
      const toggle = page.locator('.filters .more-toggle');
      if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) !== 'true')
        await toggle.click();
    }

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

    for (const viewport of VIEWPORTS) {
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
            path: join(SCREENSHOTS, viewport.name === 'wide' ? 'waterfall.png' : 'waterfall-narrow.png'),
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
          const file = join(dir, `many-${viewport.name}.jsonl`);
          manyCalls(file, 20_000);
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
            path: join(SCREENSHOTS, viewport.name === 'wide' ? 'tool-time.png' : 'tool-time-narrow.png'),
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
          if (viewport.name === 'narrow') {
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
          servers.push({ close: () => new Promise<void>((done) => host.close(() => done())) });
          const hostOrigin = `http://127.0.0.1:${(host.address() as { port: number }).port}`;
          const frameable = await serve([MCP_TAPE], [hostOrigin]);
          const refusing = await serve([MCP_TAPE]);
          const framing = await contexts[0]!.newPage();
          const refused: string[] = [];
          framing.on('console', (msg) => refused.push(msg.text()));
          problems.push(await blockOutside(framing));
          const embed = (server: ViewServer) =>
            encodeURIComponent(server.url.replace('/#/timeline', '/?embed=1#/waterfall'));

          await framing.goto(`${hostOrigin}/?src=${embed(frameable)}`);
          const frame = framing.frameLocator('iframe');
          await frame.locator('.wf-row').first().waitFor();
          expect(await frame.locator('.top').isVisible()).toBe(false);
          if (viewport.name === 'wide')
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
