import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { instrument } from '../../src/instrument/index.js';
import { loaded, NO_BROWSER, shown, waitForCount } from './browser.js';
import { collectorSuite } from './collector-page.js';
import { liveSession } from './live-session.js';
import { expectedRows, MCP_TAPE } from './traces.js';

/** The viewer served by the real collector: a stored trace, the trace list, and a live trace followed as it grows. */

const TOKEN = 'cd'.repeat(32);
const session = liveSession('2026-11-29T12:00:00.000Z', 'live-calc');
const calls = session.calls;

describe.skipIf(NO_BROWSER !== undefined)(`the viewer on the collector ${NO_BROWSER ?? ''}`, () => {
  const suite = collectorSuite('tapedeck-viewer-collector-', TOKEN);
  const { api, append } = suite;
  const visit = (url: string) => suite.visit(url, { viewport: { width: 1360, height: 820 } });

  it('lists instrumented production sessions by user and client, with requests and errors, each opening in the timeline', async () => {
    const server = new McpServer({ name: 'calc', version: '1.0.0' });
    server.registerTool('divide', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) =>
      b === 0
        ? { content: [{ type: 'text', text: 'cannot divide by zero' }], isError: true }
        : { content: [{ type: 'text', text: String(a / b) }] },
    );
    const recorder = instrument(server, {
      to: { type: 'collector', url: suite.url(), token: TOKEN },
      getUser: () => ({ id: 'u-42', email: 'ada@example.com' }),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'desk-agent', version: '2.1.0' });
    await client.connect(clientSide);
    await client.callTool({ name: 'divide', arguments: { a: 6, b: 3 } });
    await client.callTool({ name: 'divide', arguments: { a: 1, b: 0 } });
    await recorder.flush();

    const page = await visit(`${suite.url()}/#/`);
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
    const page = await visit(`${suite.url()}/#/`);
    const link = page.locator(`.collector a[data-trace="${id}"]`);
    expect(await shown(link)).toBe('everything');
    // Each listed trace says its state, its failed requests and how long it ran.
    const item = page.locator('.collector li', { has: page.locator(`a[data-trace="${id}"]`) });
    expect(await shown(item)).toMatch(/everything complete \d+ errors? /);
    expect(await item.locator('[data-errors]').getAttribute('data-errors')).toMatch(/^\d+$/);
    await page.goto(url);
    await loaded(page);
    await waitForCount(page, '.timeline', expectedRows(readFileSync(MCP_TAPE, 'utf8')));
    expect(new URL(page.url()).hash).toBe(`#/trace/${id}/timeline`);

    // A share link opens the same trace through the share's own API.
    const share = await api(`/api/v1/traces/${id}/shares`, { method: 'POST', body: '{}' });
    expect(share.status).toBe(201);
    const shared = await visit(((await share.json()) as { url: string }).url);
    await loaded(shared);
    await waitForCount(shared, '.timeline', expectedRows(readFileSync(MCP_TAPE, 'utf8')));
    expect(new URL(shared.url()).hash).toMatch(/^#\/share\/[A-Za-z0-9_-]{32}\/timeline$/);
  });

  it('follows a live trace: the snapshot, lines appended while open, a resume after the collector restarts', async () => {
    const id = await suite.liveTrace('live-calc');
    await append(id, [session.meta, ...calls(1, 4)]);
    const page = await visit(`${suite.url()}/#trace=${id}`);
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
    await suite.stop();
    await page.locator('.status .live[data-live="reconnecting"]').waitFor();
    await suite.start();
    await append(id, calls(11, 14));
    await waitForCount(page, '.timeline', 14);
    await page.locator('.status .live[data-live="live"]').waitFor();
    expect(await shown(page.locator('.status .live'))).toContain('reconnected');
    const keys = await page
      .locator('.timeline .row')
      .evaluateAll((rows) => rows.map((r) => (r as unknown as { dataset: { key: string } }).dataset.key));
    expect(new Set(keys).size).toBe(keys.length);

    await append(id, [session.end(200)]);
    await page.locator('.status .live[data-live="ended"]').waitFor();
    await waitForCount(page, '.timeline', 15);
    expect(await page.locator('.timeline .row.unanswered').count()).toBe(0);
  });
});
