import { join } from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { traceFilesFor } from '../../src/cli/commands/view.js';
import { TraceIndex } from '../../src/view/paged/trace-index.js';
import { startViewServer, type ViewServer, viewFiles } from '../../src/view/server.js';
import { REPO_ROOT } from '../helpers/peers.js';
import { type BrowserSuite, loaded, readAll } from './browser.js';

/** The two screens every viewer feature is tried on: a laptop and a phone. */
export const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
export type Size = (typeof SIZES)[number];

/** Real recordings with server-everything (test/fixtures/viewer/README.md). */
export const STDIO_SESSION = join(REPO_ROOT, 'test', 'fixtures', 'viewer', 'everything-stdio.jsonl');
export const HTTP_SESSION = join(REPO_ROOT, 'test', 'fixtures', 'viewer', 'everything-http.jsonl');

/** A page's size on screen. */
export type Viewport = { readonly width: number; readonly height: number };

/** How a page of `tapedeck view` is opened beyond its files, route and size. */
export interface OpenOptions {
  dark?: boolean;
  /** The page's query (`?embed=1`), before the route. */
  query?: string;
  /** Anything else of the page's context (clipboard permissions). */
  context?: BrowserContextOptions;
}

/**
 * Pages of `tapedeck view` in a browser suite: each `open` serves the given trace files as the command does and
 * opens the page at a size, once it has read them. What they open is closed, and their pages checked, after each
 * test (see browserSuite).
 *
 * @example const pages = new ViewPages(browserSuite('tapedeck-viewer-')); const page = await pages.open([file], '#/calls', SIZES[0]);
 */
export class ViewPages {
  constructor(private readonly suite: BrowserSuite) {}

  /** `tapedeck view FILES` in process (`--embed` origins as `frameAncestors`), closed after the test. */
  async serve(files: string[], frameAncestors?: string[]): Promise<ViewServer> {
    const server = await startViewServer({
      files: viewFiles(await traceFilesFor(files)),
      ...(frameAncestors ? { frameAncestors } : {}),
    });
    return this.suite.watch.closeAfter(server);
  }

  async open(files: string[], hash: string, viewport: Viewport, options: OpenOptions = {}): Promise<Page> {
    const page = await this.visit(await this.serve(files), hash, viewport, options);
    // Embed mode hides the status bar; it still says when everything is read.
    await (options.query?.includes('embed=1') ? readAll(page) : loaded(page));
    return page;
  }

  /** `tapedeck view --paged FILE` in process: the trace indexed by the server, the viewer asking for pages. */
  async openPaged(file: string, hash: string, viewport: Viewport): Promise<Page> {
    const files = viewFiles(await traceFilesFor([file]));
    const index = await TraceIndex.open(file, files);
    const server = this.suite.watch.closeAfter(await startViewServer({ files, paged: index }));
    const page = await this.visit(server, hash, viewport);
    await readAll(page);
    return page;
  }

  private visit(
    server: ViewServer,
    hash: string,
    viewport: Viewport,
    options: OpenOptions = {},
  ): Promise<Page> {
    return this.suite.visit(server.url.replace('/#/timeline', `/${options.query ?? ''}${hash}`), {
      viewport: { width: viewport.width, height: viewport.height },
      colorScheme: options.dark ? 'dark' : 'light',
      ...options.context,
    });
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

/** On a phone the filters (and the export buttons with them) fold behind one button: unfolds them. */
export async function unfold(page: Page): Promise<void> {
  const toggle = page.locator('.filters .more-toggle');
  if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) !== 'true')
    await toggle.click();
}
