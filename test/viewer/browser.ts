import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Locator,
  type Page,
} from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { REPO_ROOT } from '../helpers/peers.js';

/**
 * The browser side of the viewer tests: Debian's Chromium driven by playwright-core (never a downloaded browser),
 * every request that leaves the machine refused.
 */

export const CHROMIUM = process.env.TAPEDECK_CHROMIUM ?? '/usr/bin/chromium';
export const VIEWER_INDEX = join(REPO_ROOT, 'dist', 'viewer', 'index.html');
/**
 * Where the tests save a screenshot of each view: docs/screenshots (the guides' pictures) when
 * TAPEDECK_SCREENSHOTS is set (`npm run screenshots`), else a temporary folder, so a test run leaves the tree alone.
 */
export const SCREENSHOTS = process.env.TAPEDECK_SCREENSHOTS
  ? join(REPO_ROOT, 'docs', 'screenshots')
  : join(tmpdir(), 'tapedeck-screenshots');

/**
 * Why the browser tests cannot run on this machine, or undefined when they can. `npm test` must work with only
 * Node.js and npm, so without Chromium they are skipped — saying so, with what to install. CI installs Chromium and
 * sets TAPEDECK_REQUIRE_BROWSER=1, which turns a missing browser into a failure instead.
 */
export const NO_BROWSER =
  !existsSync(CHROMIUM) && process.env.TAPEDECK_REQUIRE_BROWSER !== '1'
    ? `(skipped: no Chromium at ${CHROMIUM}; install it with \`apt-get install -y chromium\`)`
    : undefined;
if (NO_BROWSER !== undefined) console.warn(`tapedeck viewer browser tests ${NO_BROWSER}`);

/**
 * Launches Chromium, or fails with what to do: a missing browser (when required) or an unbuilt viewer must say
 * so, not skip quietly.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `the viewer tests need Chromium at ${CHROMIUM}: install it with \`apt-get install -y chromium\` ` +
        '(or point TAPEDECK_CHROMIUM at a Chromium binary)',
    );
  }
  if (!existsSync(VIEWER_INDEX)) {
    throw new Error(`the viewer is not built (no ${VIEWER_INDEX}): run \`npm run build\` first`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}

/** Aborts every request that is not to 127.0.0.1 / localhost or a file/data URL, and records what was tried. */
export async function blockOutside(page: Page): Promise<string[]> {
  const refused: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    const local =
      url.protocol === 'file:' ||
      url.protocol === 'data:' ||
      ['127.0.0.1', 'localhost'].includes(url.hostname);
    if (local) return route.continue();
    refused.push(url.href);
    return route.abort();
  });
  return refused;
}

/** Page errors and console errors, to assert there were none. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  return errors;
}

/** Waits until the viewer has read everything it was given. */
export async function loaded(page: Page): Promise<void> {
  await page.locator('.status[data-loaded="yes"] .loaded').waitFor({ timeout: 20_000 });
}

/**
 * Waits until the viewer has read everything it was given, also where nothing of the status bar is drawn (embed
 * mode hides it; a paged trace's first screen may come late on a busy machine).
 */
export async function readAll(page: Page): Promise<void> {
  await page.locator('.status[data-loaded="yes"]').waitFor({ state: 'attached', timeout: 30_000 });
}

/** Waits until a virtual list says it holds `count` rows (its `data-count`). */
export async function waitForCount(page: Page, list: string, count: number): Promise<void> {
  await page.locator(`${list}[data-count="${count}"]`).waitFor({ timeout: 10_000 });
}

/** A computed style property of the first element matching `selector`. */
export async function computedStyle(page: Page, selector: string, property: string): Promise<string> {
  return page
    .locator(selector)
    .first()
    .evaluate(
      (el, name) =>
        (globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }).getComputedStyle(
          el,
        )[name] ?? '',
      property,
    );
}

/** The text of an element as a person sees it (layout-aware, unlike textContent). */
export async function shown(locator: Locator): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text the assertions are about
  return locator.innerText();
}

interface Closable {
  close(): Promise<unknown>;
}

/**
 * What a test opened (pages, contexts, servers) and what went wrong on its pages. `close` ends them newest first
 * (a page before the server it was opened on) and asserts that no page had an error, logged one to the console or
 * asked for anything off the machine — but for the problems `expected` matches, which a suite causes on purpose.
 *
 * @example const watch = new PageWatch(); await watch.watch(watch.closeAfter(await browser.newPage())); await watch.close();
 */
export class PageWatch {
  private readonly opened: Closable[] = [];
  private readonly problems: string[][] = [];

  constructor(private readonly expected?: RegExp) {}

  /** Closes `thing` when the test ends. */
  closeAfter<T extends Closable>(thing: T): T {
    this.opened.push(thing);
    return thing;
  }

  /**
   * Refuses the page's requests off the machine and records its errors; `consoleErrors: false` for a page whose
   * console is expected to complain (a frame the browser refuses).
   */
  async watch(page: Page, { consoleErrors = true } = {}): Promise<Page> {
    this.problems.push(await blockOutside(page));
    if (consoleErrors) this.problems.push(collectErrors(page));
    return page;
  }

  async close(): Promise<void> {
    for (const thing of this.opened.splice(0).reverse()) await thing.close();
    const problems = this.problems.splice(0).flat();
    expect(problems.filter((p) => !this.expected?.test(p))).toEqual([]);
  }
}

/** What a browser suite's hooks set up: see {@link browserSuite}. */
export interface BrowserSuite {
  browser(): Browser;
  /** The suite's temporary folder. */
  dir(): string;
  watch: PageWatch;
  /** A page of its own (its own context), watched and closed after the test. */
  newPage(options?: BrowserContextOptions): Promise<Page>;
  /** A context, closed after the test; its pages are watched by whoever opens them. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** A new page at `url`, watched; nothing waited for beyond the navigation. */
  visit(url: string, options?: BrowserContextOptions): Promise<Page>;
}

/**
 * Registers the hooks of a browser suite and hands back what they set up: Chromium launched once, a temporary
 * folder named after `prefix`, and after each test what it opened closed and its pages checked (see PageWatch;
 * `expected` names the page errors the suite causes on purpose). Call it inside the suite's `describe`.
 *
 * @example const suite = browserSuite('tapedeck-viewer-nav-'); it('…', async () => { const page = await suite.visit(url); });
 */
export function browserSuite(prefix: string, expected?: RegExp): BrowserSuite {
  let browser: Browser | undefined;
  let dir: string | undefined;
  const watch = new PageWatch(expected);
  beforeAll(async () => {
    browser = await launchBrowser();
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(() => watch.close());
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined)
      throw new Error('the browser suite is set up in beforeAll: use it inside a test');
    return value;
  };
  const newPage = async (options?: BrowserContextOptions) =>
    watch.watch(watch.closeAfter(await ready(browser).newPage(options)));
  return {
    browser: () => ready(browser),
    dir: () => ready(dir),
    watch,
    newPage,
    newContext: async (options) => watch.closeAfter(await ready(browser).newContext(options)),
    visit: async (url, options) => {
      const page = await newPage(options);
      await page.goto(url);
      return page;
    },
  };
}
