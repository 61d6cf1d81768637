import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Collector, startCollector } from '../../src/collector/index.js';
import { instrument } from '../../src/instrument/index.js';
import {
  blockOutside,
  collectErrors,
  launchBrowser,
  loaded,
  NO_BROWSER,
  shown,
  waitForCount,
} from './browser.js';
import { expectedRows, MCP_TAPE } from './traces.js';

/** The viewer served by the real collector: a stored trace, the trace list, and a live trace followed as it grows. */

const TOKEN = 'cd'.repeat(32);
const T0 = Date.parse('2026-11-29T12:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

/** Lines `from`..`to` of a live session: a tools/call `add` request and its answer per pair of seqs. */
function calls(from: number, to: number): string[] {
  const lines: string[] = [];
  for (let seq = from; seq <= to; seq++) {
    const id = Math.ceil(seq / 2);
    const raw =
      seq % 2 === 1
        ? { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add', arguments: { a: id, b: 1 } } }
        : { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: String(id + 1) }] } };
    lines.push(JSON.stringify({ t: at(seq * 10), seq, dir: seq % 2 === 1 ? 'in' : 'out', raw }));
  }
  return lines;
}

const META = JSON.stringify({
  v: 1,
  type: 'meta',
  startedAt: at(0),
  label: 'live-calc',
  kind: 'mcp',
  transport: 'stdio',
});

describe.skipIf(NO_BROWSER !== undefined)(`the viewer on the collector ${NO_BROWSER ?? ''}`, () => {
  let browser: Browser;
  let dir: string;
  let collector: Collector;
  const pages: Page[] = [];
  const problems: string[][] = [];

  const start = (port = 0) =>
    startCollector({
      dbPath: join(dir, 'db', 'tapedeck.db'),
      token: TOKEN,
      port,
      live: { heartbeatMs: 1000 },
    });
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${collector.url}${path}`, { ...init, headers: { authorization: `Bearer ${TOKEN}` } });
  const append = async (id: string, lines: string[]) => {
    const response = await api(`/api/v1/traces/${id}/lines`, {
      method: 'POST',
      body: `${lines.join('\n')}\n`,
    });
    expect(response.status).toBe(200);
  };
  const newPage = async () => {
    const page = await browser.newPage({ viewport: { width: 1360, height: 820 } });
    pages.push(page);
    problems.push(await blockOutside(page), collectErrors(page));
    return page;
  };

  beforeAll(async () => {
    browser = await launchBrowser();
    dir = mkdtempSync(join(tmpdir(), 'tapedeck-viewer-collector-'));
    collector = await start();
  });
  afterEach(async () => {
    for (const page of pages.splice(0)) await page.close();
    // The page may have logged the collector going away (a failed websocket); nothing else.
    const unexpected = problems
      .splice(0)
      .flat()
      .filter((p) => !/WebSocket connection to .* failed|ERR_CONNECTION_REFUSED/.test(p));
    expect(unexpected).toEqual([]);
  });
  afterAll(async () => {
    await collector?.close();
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists instrumented production sessions by user and client, with requests and errors, each opening in the timeline', async () => {
    const server = new McpServer({ name: 'calc', version: '1.0.0' });
    server.registerTool('divide', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) =>
      b === 0
        ? { content: [{ type: 'text', text: 'cannot divide by zero' }], isError: true }
        : { content: [{ type: 'text', text: String(a / b) }] },
    );
    const recorder = instrument(server, {
      to: { type: 'collector', url: collector.url, token: TOKEN },
      getUser: () => ({ id: 'u-42', email: 'ada@example.com' }),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'desk-agent', version: '2.1.0' });
    await client.connect(clientSide);
    await client.callTool({ name: 'divide', arguments: { a: 6, b: 3 } });
    await client.callTool({ name: 'divide', arguments: { a: 1, b: 0 } });
    await recorder.flush();

    const page = await newPage();
    await page.goto(`${collector.url}/#/`);
    const row = page.locator('.sessions tr[data-session]').first();
    await row.waitFor({ timeout: 20_000 });
    const cells = await row.locator('td').allInnerTexts();
    expect(cells[0]).toBe('ada@example.com · desk-agent 2.1.0');
    expect(cells[2]).toBe('calc');
    // initialize and the two calls; the divide-by-zero result is the error.
    expect(Number(cells[3])).toBeGreaterThanOrEqual(3);
    expect(cells[4]).toBe('1');
    await row.locator('a').click();
    const call = page.locator('.timeline .row', { hasText: 'tools/call divide' }).first();
    await call.waitFor({ timeout: 20_000 });
    expect(await shown(call)).toContain('tools/call divide');
    await client.close();
    await recorder.shutdown();
  });

  it('lists the stored traces and opens one from its link', async () => {
    const upload = await api('/api/v1/traces?label=everything', {
      method: 'POST',
      body: readFileSync(MCP_TAPE),
    });
    expect(upload.status).toBe(201);
    const { id, url } = (await upload.json()) as { id: string; url: string };
    const page = await newPage();
    await page.goto(`${collector.url}/#/`);
    const link = page.locator(`.collector a[data-trace="${id}"]`);
    expect(await shown(link)).toBe('everything');
    await page.goto(url);
    await loaded(page);
    await waitForCount(page, '.timeline', expectedRows(readFileSync(MCP_TAPE, 'utf8')));
    expect(new URL(page.url()).hash).toBe(`#/trace/${id}/timeline`);

    // A share link opens the same trace through the share's own API.
    const share = await api(`/api/v1/traces/${id}/shares`, { method: 'POST', body: '{}' });
    expect(share.status).toBe(201);
    const shared = await newPage();
    await shared.goto(((await share.json()) as { url: string }).url);
    await loaded(shared);
    await waitForCount(shared, '.timeline', expectedRows(readFileSync(MCP_TAPE, 'utf8')));
    expect(new URL(shared.url()).hash).toMatch(/^#\/share\/[A-Za-z0-9_-]{32}\/timeline$/);
  });

  it('follows a live trace: the snapshot, lines appended while open, a resume after the collector restarts', async () => {
    const created = await api('/api/v1/traces/live', {
      method: 'POST',
      body: JSON.stringify({ label: 'live-calc' }),
    });
    const { id } = (await created.json()) as { id: string };
    await append(id, [META, ...calls(1, 4)]);
    const page = await newPage();
    await page.goto(`${collector.url}/#trace=${id}`);
    await waitForCount(page, '.timeline', 4);
    await page.locator('.status .live[data-live="live"]').waitFor();

    await append(id, calls(5, 8));
    await waitForCount(page, '.timeline', 8);
    // A request answered later completes the row already shown.
    await append(id, calls(9, 9));
    await waitForCount(page, '.timeline', 9);
    expect(await shown(page.locator('.timeline .row').last())).toContain('pending');
    await append(id, calls(10, 10));
    await waitForCount(page, '.timeline', 10);

    // The collector goes away and comes back on the same port: the page reconnects with ?since and gets only
    // what it has not seen.
    const port = collector.port;
    await collector.close();
    await page.locator('.status .live[data-live="reconnecting"]').waitFor();
    collector = await start(port);
    await append(id, calls(11, 14));
    await waitForCount(page, '.timeline', 14);
    await page.locator('.status .live[data-live="live"]').waitFor();
    expect(await shown(page.locator('.status .live'))).toContain('reconnected');
    const keys = await page
      .locator('.timeline .row')
      .evaluateAll((rows) => rows.map((r) => (r as unknown as { dataset: { key: string } }).dataset.key));
    expect(new Set(keys).size).toBe(keys.length);

    await append(id, [JSON.stringify({ t: at(200), type: 'end', durationMs: 200, reason: 'process_exit' })]);
    await page.locator('.status .live[data-live="ended"]').waitFor();
    await waitForCount(page, '.timeline', 15);
    expect(await page.locator('.timeline .row.unanswered').count()).toBe(0);
  });
});
