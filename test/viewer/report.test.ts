import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCliHarness } from '../helpers/cli.js';
import {
  blockOutside,
  collectErrors,
  launchBrowser,
  loaded,
  NO_BROWSER,
  shown,
  waitForCount,
} from './browser.js';
import { expectedRows, MCP_TAPE, writeRotatedTrace } from './traces.js';

/** `tapedeck report`: one HTML file, secrets redacted, that works from file:// with the network shut off. */

const PASSWORD = 'hunter2-correct-horse';
const API_KEY = 'sk-abcdefghijklmnopqrstuvwxyz0123456789';

function writeSecretTrace(path: string): number {
  const t = (ms: number) => new Date(Date.parse('2026-11-29T09:00:00.000Z') + ms).toISOString();
  const lines = [
    { v: 1, type: 'meta', startedAt: t(0), label: 'login', kind: 'mcp', transport: 'stdio' },
    {
      t: t(1),
      seq: 1,
      dir: 'in',
      raw: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'login', arguments: { user: 'ada', password: PASSWORD, note: `key ${API_KEY}` } },
      },
    },
    {
      t: t(7),
      seq: 2,
      dir: 'out',
      raw: {
        jsonrpc: '2.0',
        id: 1,
        result: { content: [{ type: 'text', text: 'welcome </script><script>alert(1)</script> ada' }] },
      },
    },
    { t: t(9), type: 'end', durationMs: 9, reason: 'process_exit' },
  ];
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return 3;
}

describe.skipIf(NO_BROWSER !== undefined)(`tapedeck report ${NO_BROWSER ?? ''}`, () => {
  const io = useCliHarness('tapedeck-report-');
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('writes one redacted, self-contained page that opens from file:// with no network at all', async () => {
    const secret = join(io.dir, 'login.jsonl');
    const secretRows = writeSecretTrace(secret);
    const rotated = writeRotatedTrace(io.dir);
    const out = join(io.dir, 'out', 'report.html');
    expect(await io.run(['report', secret, rotated.files[1]!, MCP_TAPE, '-o', out])).toBe(0);
    expect(io.stdout).toContain(`wrote ${out} (3 traces`);
    expect(io.stdout).toContain(pathToFileURL(out).href);
    expect(statSync(out).mode & 0o777).toBe(0o600);

    const html = readFileSync(out, 'utf8');
    expect(html).not.toContain(PASSWORD);
    expect(html).not.toContain(API_KEY);
    expect(html).toContain('[REDACTED:password]');
    // Nothing is loaded from anywhere: no script or stylesheet by URL.
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+stylesheet/);
    expect(html).toContain("default-src 'none'");

    const page = await browser.newPage({ viewport: { width: 1360, height: 820 } });
    const refused = await blockOutside(page);
    const errors = collectErrors(page);
    const requests: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) requests.push(r.url());
    });
    await page.goto(`${pathToFileURL(out).href}#/timeline`);
    await loaded(page);
    const rows = secretRows + rotated.rows + expectedRows(readFileSync(MCP_TAPE, 'utf8'));
    await waitForCount(page, '.timeline', rows);
    expect(await page.locator('.top .source').count()).toBe(3);

    await page.locator('input[aria-label="tool"]').fill('login');
    await page.press('input[aria-label="tool"]', 'Enter');
    await waitForCount(page, '.timeline', 2);
    await page.locator('.timeline .row.k-request').click();
    const detail = await shown(page.locator('.detail'));
    expect(detail).toContain('[REDACTED:password]');
    expect(detail).toContain('welcome </script><script>alert(1)</script> ada');

    await page.locator('.tabs button[data-view="tools"]').click();
    await page.locator('table.stats').first().waitFor();
    expect(await page.locator('table.stats').first().locator('tbody tr').count()).toBe(1);

    expect({ refused, errors, requests }).toEqual({ refused: [], errors: [], requests: [] });
    await page.close();
  });

  it('needs -o and existing traces', async () => {
    expect(await io.run(['report', MCP_TAPE])).toBe(2);
    expect(io.stderr).toContain("required option '-o, --out <file>'");
    io.stderr = '';
    // A trace that cannot be read is bad input, exit 1, as for show and stats.
    expect(await io.run(['report', join(io.dir, 'nope.jsonl'), '-o', join(io.dir, 'r.html')])).toBe(1);
    expect(io.stderr).toBe(`tapedeck: no such trace file: ${join(io.dir, 'nope.jsonl')}\n`);
    expect(existsSync(join(io.dir, 'r.html'))).toBe(false);
  });
});
