import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { traceFilesFor } from '../../src/cli/commands/view.js';
import { startViewServer, type ViewServer, viewFiles } from '../../src/cli/view-server.js';
import { REPO_ROOT } from '../helpers/peers.js';
import { blockOutside, collectErrors, loaded } from './browser.js';

/** The two screens every viewer feature is tried on: a laptop and a phone. */
export const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
export type Size = (typeof SIZES)[number];

/** Real recordings with server-everything (test/fixtures/viewer/README.md). */
export const STDIO_SESSION = join(REPO_ROOT, 'test', 'fixtures', 'viewer', 'everything-stdio.jsonl');
export const HTTP_SESSION = join(REPO_ROOT, 'test', 'fixtures', 'viewer', 'everything-http.jsonl');

/**
 * Pages of `tapedeck view` in Chromium: each `open` serves the given trace files as the command does and opens
 * the page at a size; `close` stops them all and asserts nothing went wrong on any page (no page or console error,
 * no request off the machine).
 */
export class ViewPages {
  private readonly servers: ViewServer[] = [];
  private readonly pages: Page[] = [];
  private readonly problems: string[][] = [];

  constructor(private readonly browser: () => Browser) {}

  async open(files: string[], hash: string, size: Size, dark = false): Promise<Page> {
    const server = await startViewServer({ files: viewFiles(await traceFilesFor(files)) });
    this.servers.push(server);
    const page = await this.browser().newPage({
      viewport: { width: size.width, height: size.height },
      colorScheme: dark ? 'dark' : 'light',
    });
    this.pages.push(page);
    this.problems.push(await blockOutside(page), collectErrors(page));
    await page.goto(server.url.replace('#/timeline', hash));
    await loaded(page);
    return page;
  }

  async close(): Promise<void> {
    for (const page of this.pages.splice(0)) await page.close();
    for (const server of this.servers.splice(0)) await server.close();
    expect(this.problems.splice(0).flat()).toEqual([]);
  }
}

/** The route part of a page's URL (`#/timeline?sel=0.4`). */
export const hashOf = (page: Page) => new URL(page.url()).hash;

/** Where an element is on screen. */
export async function box(page: Page, selector: string) {
  const found = await page.locator(selector).first().boundingBox();
  if (!found) throw new Error(`${selector} is not on screen`);
  return found;
}
