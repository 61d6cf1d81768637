import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useCollectorApp } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'tapedeck-viewer-'));
const viewer = join(root, 'viewer');
mkdirSync(join(viewer, 'assets'), { recursive: true });
writeFileSync(
  join(viewer, 'index.html'),
  '<!doctype html><title>viewer</title><script src="assets/app.js"></script>',
);
writeFileSync(join(viewer, 'assets', 'app.js'), 'console.log("viewer");');
writeFileSync(join(root, 'secret.txt'), 'not for the web');
symlinkSync(join(root, 'secret.txt'), join(viewer, 'assets', 'leak.txt'));

describe('the collector serving the built viewer', () => {
  const h = useCollectorApp({ viewerDir: viewer });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('serves index.html at / and its assets with their types, nothing outside the folder', async () => {
    const index = await h.fetch(`${h.url}/`);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await index.text()).toContain('<title>viewer</title>');
    const app = await h.fetch(`${h.url}/assets/app.js`);
    expect(app.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await app.text()).toBe('console.log("viewer");');
    expect((await h.fetch(`${h.url}/assets/missing.js`)).status).toBe(404);
    expect((await h.fetch(`${h.url}/assets/leak.txt`)).status).toBe(404);
    const outside = await h.fetch(`${h.url}/assets/..%2f..%2fsecret.txt`);
    expect(outside.status).toBe(404);
    expect(await outside.text()).not.toContain('not for the web');
  });
});
