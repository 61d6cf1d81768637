import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { basename, dirname, resolve } from 'node:path';
import { hostRefusal } from '../base/host-refusals.js';
import { listenOn } from '../base/listen.js';
import { duplicateHost, judgeHostOrigin } from '../base/local-names.js';
import { viewerSecurityHeaders } from '../base/viewer-headers.js';
import { readViewerFile, readViewerPage, viewerDir } from '../collector/viewer-files.js';
import { pagedRoutes } from './paged/routes.js';
import type { TraceIndex } from './paged/trace-index.js';
import { withConfig } from './viewer-assets.js';

/**
 * The local server behind `tapedeck view`: the built viewer and the given trace files, on 127.0.0.1 only, every
 * URL under a random token (`/<token>/…`) so no other local program or web page can read the traces by guessing
 * the port. Requests without the token get 403, and so do requests whose Host or Origin is not this server
 * (a page elsewhere that rebinds its DNS name to 127.0.0.1 still sends its own name).
 */

export interface ViewFile {
  /** The file on disk. */
  file: string;
  /** Its name for the viewer: a virtual folder per real folder, so rotated segments stitch and nothing else does. */
  path: string;
}

export interface ViewServerOptions {
  files: readonly ViewFile[];
  /** 0 (default) picks a free port. */
  port?: number;
  /** The built viewer (default dist/viewer). */
  dir?: string;
  /** Fixed token (tests); default 16 random bytes, hex. */
  token?: string;
  /**
   * Pages that may frame the viewer (`--embed`), as frame-ancestors sources (see viewerSecurityHeaders); none by
   * default, and then no page may.
   */
  frameAncestors?: readonly string[];
  /**
   * A trace too big for the browser, indexed here: the page asks for it a page at a time (`api/paged/…`, see
   * paged/routes.ts) instead of downloading the files.
   */
  paged?: TraceIndex;
}

export interface ViewServer {
  /** The page to open, token included. */
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

/**
 * How long a paged trace's indexing steps aside (ms): while a request is answered (per slice of indexing, so a long
 * export cannot stall it), and while a page that was just served draws its first screen.
 */
const PAGED_YIELD = { answering: 50, firstScreen: 3000 } as const;

/** The token is in the URL: never cached, never handed to another site in a Referer (see viewerSecurityHeaders). */
function securityHeaders(frameAncestors: readonly string[] | undefined): Record<string, string> {
  return { ...viewerSecurityHeaders(frameAncestors), 'cache-control': 'no-store' };
}

/**
 * Groups trace files into virtual folders by their real folder: `/a/x.jsonl` and `/a/x.1.jsonl` land in one
 * folder (and stitch), `/b/x.jsonl` in another.
 *
 * @example viewFiles(['/t/a.jsonl', '/u/a.jsonl']) // → [{ file: '/t/a.jsonl', path: 'd0/a.jsonl' }, { file: '/u/a.jsonl', path: 'd1/a.jsonl' }]
 */
export function viewFiles(files: readonly string[]): ViewFile[] {
  const folders = new Map<string, number>();
  const seen = new Set<string>();
  const out: ViewFile[] = [];
  for (const file of files) {
    const full = resolve(file);
    if (seen.has(full)) continue;
    seen.add(full);
    const folder = dirname(full);
    if (!folders.has(folder)) folders.set(folder, folders.size);
    out.push({ file: full, path: `d${folders.get(folder)}/${basename(full)}` });
  }
  return out;
}

function sameToken(presented: string, token: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Starts the server; resolves once it listens.
 *
 * @example const server = await startViewServer({ files: viewFiles(['trace.jsonl']) }); console.log(server.url);
 */
export async function startViewServer(options: ViewServerOptions): Promise<ViewServer> {
  const dir = options.dir ?? viewerDir();
  const page = await readViewerPage(dir);
  const token = options.token ?? randomBytes(16).toString('hex');
  const index = withConfig(page, { mode: options.paged ? 'paged' : 'files', api: 'api/' });
  const paged = options.paged ? pagedRoutes(options.paged) : undefined;
  // Requests being answered, and a page drawing its first screen: a paged trace's indexing steps aside for them.
  let answering = 0;
  let firstScreenUntil = 0;
  if (options.paged)
    options.paged.busy = () =>
      Math.max(answering > 0 ? PAGED_YIELD.answering : 0, Math.max(0, firstScreenUntil - Date.now()));
  const headers = securityHeaders(options.frameAncestors);
  let port = 0;
  const server: Server = createServer((req, res) => {
    // Every answer carries them, refusals and errors too; writeHead adds its own to these.
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    answering++;
    res.once('close', () => answering--);
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const duplicate = duplicateHost(req.rawHeaders);
    if (duplicate) return send(res, 400, 'text/plain; charset=utf-8', `bad request: ${duplicate}\n`);
    const refusal = refuse(req, port);
    if (refusal) return send(res, 403, 'text/plain; charset=utf-8', `${refusal}\n`);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const parts = url.pathname.split('/');
    // parts: ['', token, ...rest]
    if (parts[1] === undefined || !sameToken(parts[1], token)) {
      return send(
        res,
        403,
        'text/plain; charset=utf-8',
        'forbidden: open the URL tapedeck view printed (it holds a token)\n',
      );
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return send(res, 405, 'text/plain; charset=utf-8', 'only GET and HEAD\n');
    }
    const rest = parts.slice(2).join('/');
    if (rest === '' || rest === 'index.html') {
      // Until the page's first rows are served (or a few seconds passed), the index waits.
      firstScreenUntil = Date.now() + PAGED_YIELD.firstScreen;
      return send(res, 200, 'text/html; charset=utf-8', index, req.method === 'HEAD');
    }
    if (rest === 'api/files') {
      const files = await Promise.all(
        options.files.map(async (f, i) => ({
          path: f.path,
          size: (await stat(f.file).catch(() => ({ size: 0 }))).size,
          url: `api/files/${i}`,
        })),
      );
      return send(res, 200, 'application/json; charset=utf-8', JSON.stringify({ files }));
    }
    if (paged && rest.startsWith('api/paged/') && (await paged(rest.slice(10), url.searchParams, res)))
      return;
    const fileMatch = /^api\/files\/(\d+)$/.exec(rest);
    if (fileMatch) {
      const file = options.files[Number(fileMatch[1])];
      if (!file) return send(res, 404, 'text/plain; charset=utf-8', 'no such file\n');
      return streamFile(res, file.file, 'application/octet-stream', req.method === 'HEAD');
    }
    if (rest.startsWith('assets/')) {
      const asset = await readViewerFile(dir, rest);
      if (asset === undefined) return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
      return send(res, 200, asset.type, asset.body, req.method === 'HEAD');
    }
    return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  }

  port = (await listenOn(server, '127.0.0.1', options.port ?? 0, 'pick another with --port, or leave it out'))
    .port;
  return {
    url: `http://127.0.0.1:${port}/${token}/#/timeline`,
    port,
    token,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

/**
 * Why a request is refused for its Host or Origin (DNS rebinding, cross-site pages, another local port), or
 * undefined: by the guard every listener shares, with this server's port required in Host.
 */
export function refuse(req: Pick<IncomingMessage, 'headers'>, port: number): string | undefined {
  const host = req.headers.host;
  const origin = req.headers.origin;
  const verdict = judgeHostOrigin(host, origin, () => false, port);
  const refusal = hostRefusal(verdict, { host, origin }, { listener: 'this server', port });
  return refusal === undefined ? undefined : `forbidden: ${refusal}`;
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, head = false): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': String(Buffer.byteLength(body)),
  });
  res.end(head ? undefined : body);
}

async function streamFile(res: ServerResponse, file: string, type: string, head: boolean): Promise<void> {
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) return send(res, 404, 'text/plain; charset=utf-8', `${basename(file)} is gone\n`);
  res.writeHead(200, { 'content-type': type, 'content-length': String(info.size) });
  if (head) return void res.end();
  // Read exactly the size announced, even if a recorder is still appending to the file.
  const stream = createReadStream(file, {
    start: 0,
    end: Math.max(0, info.size - 1),
    highWaterMark: 1024 * 1024,
  });
  if (info.size === 0) return void res.end();
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}
