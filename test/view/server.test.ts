/**
 * `tapedeck view`'s server answers assets from the built viewer's folder through the asset lookup the collector
 * uses (nothing outside the folder, links included), and guards Host / Origin with the guard every listener shares,
 * its own port required.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startViewServer, type ViewServer } from '../../src/view/server.js';

const root = mkdtempSync(join(tmpdir(), 'tapedeck-view-server-'));
const viewer = join(root, 'viewer');
const token = 'c'.repeat(32);
let server: ViewServer;

/** A GET with the headers given as they are (fetch would set Host itself). */
function get(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, headers, setHost: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  mkdirSync(join(viewer, 'assets'), { recursive: true });
  writeFileSync(join(viewer, 'index.html'), '<!doctype html><html><head></head><body></body></html>');
  writeFileSync(join(viewer, 'assets', 'app.js'), 'console.log("viewer");');
  writeFileSync(join(root, 'secret.txt'), 'not for the web');
  symlinkSync(join(root, 'secret.txt'), join(viewer, 'assets', 'leak.js'));
  server = await startViewServer({ files: [], dir: viewer, token });
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

describe('tapedeck view: the built viewer behind its token', () => {
  it('serves an asset with its type, and nothing a link leads to outside the folder', async () => {
    const host = { host: `127.0.0.1:${server.port}` };
    expect(await get(`/${token}/assets/app.js`, host)).toEqual({
      status: 200,
      body: 'console.log("viewer");',
    });
    const leak = await get(`/${token}/assets/leak.js`, host);
    expect(leak.status).toBe(404);
    expect(leak.body).not.toContain('not for the web');
    expect((await get(`/${token}/assets/..%2f..%2fsecret.txt`, host)).status).toBe(404);
  });

  it('refuses a Host naming another port or another site, and a page of another origin', async () => {
    const other = await get(`/${token}/`, { host: `localhost:${server.port + 1}` });
    expect(other).toEqual({
      status: 403,
      body: `forbidden: Host 'localhost:${server.port + 1}' is not allowed: this server answers only localhost, 127.0.0.1 and [::1] on port ${server.port}\n`,
    });
    expect((await get(`/${token}/`, { host: `evil.example:${server.port}` })).status).toBe(403);
    const page = await get(`/${token}/`, {
      host: `localhost:${server.port}`,
      origin: 'http://localhost:5173',
    });
    expect(page).toEqual({
      status: 403,
      body: `forbidden: Origin 'http://localhost:5173' is not this server's own origin (http://localhost:${server.port}): pages of other sites, and of other local ports, may not use it\n`,
    });
    expect((await get(`/${token}/`, { host: `localhost:${server.port}` })).status).toBe(200);
  });
});
