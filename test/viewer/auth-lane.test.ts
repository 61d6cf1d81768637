import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/peers.js';
import { browserSuite, NO_BROWSER } from './browser.js';
import { SIZES, STDIO_SESSION, ViewPages } from './view-page.js';

/**
 * The viewer's auth lane: a recording that holds an OAuth flow shows its steps as `tapedeck show` does — each step,
 * its status, and the failing step with its reason — and a recording without one shows no lane at all.
 */

const OAUTH_SESSION = join(REPO_ROOT, 'test', 'fixtures', 'viewer', 'oauth-bridge-refresh.jsonl');

describe.skipIf(NO_BROWSER !== undefined)(`the viewer's auth lane ${NO_BROWSER ?? ''}`, () => {
  const pages = new ViewPages(browserSuite('tapedeck-viewer-auth-'));
  const laptop = SIZES.find((size) => size.name !== 'phone') ?? SIZES[0];

  it('names the first failure in its summary and lists every step with its status when opened', async () => {
    const page = await pages.open([OAUTH_SESSION], '#/timeline', laptop);
    const lane = page.locator('section.auth-lane');
    await expect
      .poll(() => lane.locator('.auth-summary').textContent())
      .toBe('5 steps; first failure at call: expired token');
    expect(await lane.locator('.auth-step').count()).toBe(0);

    await lane.getByRole('button', { name: 'auth' }).click();
    const rows = lane.locator('.auth-step');
    expect(await rows.locator('.auth-name').allTextContents()).toEqual([
      'call',
      'resource-metadata',
      'server-metadata',
      'refresh',
      'call',
    ]);
    expect(await rows.locator('.auth-status').allTextContents()).toEqual(['401', '200', '200', '200', '200']);
    expect(await rows.locator('.auth-ok').allTextContents()).toEqual(['FAILED', 'ok', 'ok', 'ok', 'ok']);
    const failed = lane.locator('.auth-step.failed');
    expect(await failed.count()).toBe(1);
    expect(await failed.locator('.auth-detail').textContent()).toMatch(
      /^expired token: invalid_token: Token has expired; .*token \[REDACTED:oauth-access-token:[0-9a-f]{12}\]$/,
    );
    expect(await rows.nth(3).locator('.auth-detail').textContent()).toContain(
      'token [REDACTED:oauth-access-token:',
    );
  });

  it('is absent from a recording without OAuth', async () => {
    const page = await pages.open([STDIO_SESSION], '#/timeline', laptop);
    await expect.poll(() => page.locator('.timeline .row').count()).toBeGreaterThan(0);
    expect(await page.locator('section.auth-lane').count()).toBe(0);
  });
});
