import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VIEWER_SECURITY_HEADERS } from '../viewer-headers.js';

/**
 * The built web viewer, served at `/`: `index.html` and its assets from one folder, nothing outside it. The
 * viewer routes itself (`/#trace=<id>`, `/#share=<id>`), so only real files are served; anything else is 404.
 * Every file goes out with the viewer's security headers (content security policy, no framing).
 */

/** `<package>/dist/viewer`, from this module's place in either src/collector or dist/collector. */
export function defaultViewerDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'viewer');
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tapedeck collector</title></head>
<body><h1>tapedeck collector</h1>
<p>The web viewer is not built (no <code>dist/viewer/index.html</code> in this installation), so there is nothing to
show here. The collector itself is running: its API is under <code>/api/v1/</code>, e.g.
<a href="/api/v1/traces">/api/v1/traces</a>.</p></body></html>
`;

const HEADERS = VIEWER_SECURITY_HEADERS;

/**
 * Answers a GET for `pathname` from `dir`, or undefined when no such file exists there.
 *
 * @example const response = await viewerFile(defaultViewerDir(), '/assets/app.js');
 */
export async function viewerFile(dir: string, pathname: string): Promise<Response | undefined> {
  const root = await realpath(dir).catch(() => undefined);
  if (root === undefined) {
    if (pathname !== '/' && pathname !== '/index.html') return undefined;
    return new Response(NOT_BUILT, { headers: { 'content-type': TYPES['.html']!, ...HEADERS } });
  }
  let relative: string;
  try {
    relative = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (relative.includes('\0') || relative.split('/').some((part) => part === '..')) return undefined;
  if (relative.endsWith('/')) relative += 'index.html';
  const path = await realpath(join(root, relative)).catch(() => undefined);
  // Symbolic links may not lead out of the folder.
  if (path === undefined || (path !== root && !path.startsWith(root + sep))) return undefined;
  const info = await stat(path).catch(() => undefined);
  if (info === undefined || !info.isFile()) return undefined;
  const type = TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
  const cache = extname(path) === '.html' ? 'no-cache' : 'public, max-age=3600';
  return new Response(await readFile(path), {
    headers: { 'content-type': type, 'cache-control': cache, ...HEADERS },
  });
}
