import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { REPO_ROOT } from '../helpers/peers.js';

/**
 * The browser side of the viewer tests: Debian's Chromium driven by playwright-core (never a downloaded browser),
 * every request that leaves the machine refused.
 */

export const CHROMIUM = process.env.TAPEDECK_CHROMIUM ?? '/usr/bin/chromium';
export const VIEWER_INDEX = join(REPO_ROOT, 'dist', 'viewer', 'index.html');
/**
 * Where the tests save a screenshot of each view: docs/screenshots (the README's pictures) when
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
