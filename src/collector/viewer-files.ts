import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TapedeckError } from '../base/errors.js';
import { VIEWER_SECURITY_HEADERS } from '../base/viewer-headers.js';

/**
 * The built web viewer's files, for every server that serves them (the collector at `/`, `tapedeck view` under its
 * token) and for `tapedeck report`, which inlines them: where they are, the page, and one file by its URL path —
 * from the viewer's folder and nothing outside it (a `..` or a symbolic link leading out is no file).
 */

/** `<package>/dist/viewer`, from this module's place in src/collector, dist/collector or the bundled dist/cli. */
export function viewerDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'viewer');
}

/**
 * The viewer's index.html; fails with one line saying how to build it.
 *
 * @example const page = await readViewerPage(); // the page `tapedeck view` adds its config element to
 */
export async function readViewerPage(dir = viewerDir()): Promise<string> {
  try {
    return await readFile(join(dir, 'index.html'), 'utf8');
  } catch {
    throw new TapedeckError(
      'io',
      `the web viewer is not built (no ${join(dir, 'index.html')}); run npm run build in the tapedeck folder`,
    );
  }
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

/** One file of the built viewer: its bytes and content type. */
export interface ViewerFile {
  body: Buffer;
  type: string;
  /** A page (index.html) rather than a versioned asset: never cached for long. */
  page: boolean;
}

/**
 * The file of `dir` that a URL path names (`/` and folders mean their index.html), or undefined when there is no
 * such file inside `dir`: a path with `..` or NUL, a bad escape, or a link that leads out of the folder.
 *
 * @example await readViewerFile(viewerDir(), '/assets/index-3f2a.js') // → { body, type: 'text/javascript; …' }
 */
export async function readViewerFile(dir: string, pathname: string): Promise<ViewerFile | undefined> {
  const root = await realpath(dir).catch(() => undefined);
  if (root === undefined) return undefined;
  let relative: string;
  try {
    relative = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (relative.includes('\0') || relative.split('/').some((part) => part === '..')) return undefined;
  if (relative === '' || relative.endsWith('/')) relative += 'index.html';
  const path = await realpath(join(root, relative)).catch(() => undefined);
  // Symbolic links may not lead out of the folder.
  if (path === undefined || (path !== root && !path.startsWith(root + sep))) return undefined;
  const info = await stat(path).catch(() => undefined);
  if (info === undefined || !info.isFile()) return undefined;
  const body = await readFile(path).catch(() => undefined);
  if (body === undefined) return undefined;
  const type = TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
  return { body, type, page: extname(path) === '.html' };
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tapedeck collector</title></head>
<body><h1>tapedeck collector</h1>
<p>The web viewer is not built (no <code>dist/viewer/index.html</code> in this installation), so there is nothing to
show here. The collector itself is running: its API is under <code>/api/v1/</code>, e.g.
<a href="/api/v1/traces">/api/v1/traces</a>.</p></body></html>
`;

/**
 * The collector's answer to a GET outside its API: the viewer's file (pages not cached, assets for an hour, every
 * one with the viewer's security headers), a page saying the viewer is not built, or undefined (404).
 *
 * @example const response = await viewerResponse(viewerDir(), '/assets/app.js');
 */
export async function viewerResponse(dir: string, pathname: string): Promise<Response | undefined> {
  const file = await readViewerFile(dir, pathname);
  if (file !== undefined) {
    const cache = file.page ? 'no-cache' : 'public, max-age=3600';
    return new Response(file.body, {
      headers: { 'content-type': file.type, 'cache-control': cache, ...VIEWER_SECURITY_HEADERS },
    });
  }
  const built = await realpath(dir).then(
    () => true,
    () => false,
  );
  if (built || (pathname !== '/' && pathname !== '/index.html')) return undefined;
  return new Response(NOT_BUILT, {
    headers: { 'content-type': TYPES['.html']!, ...VIEWER_SECURITY_HEADERS },
  });
}
