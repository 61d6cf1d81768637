import { rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type CollectorApp, openCollectorApp } from '../../src/collector/app.js';
import { type Collector, type CollectorOptions, startCollector } from '../../src/collector/index.js';
import { scratchDir } from '../helpers/scratch.js';

/** A fixed token for tests: 64 hex digits. */
export const TEST_TOKEN = 'ab'.repeat(32);

/** What the route tests need of a collector, in process or on a socket. */
export interface CollectorClient {
  /** The collector's base URL (in process: a name only — requests never leave the process). */
  url: string;
  /** fetch against the collector, with the token unless `auth: false`. */
  api(path: string, init?: RequestInit & { auth?: boolean }): Promise<Response>;
}

export interface CollectorHarness extends CollectorClient {
  dir: string;
  collector: Collector;
}

export interface CollectorAppHarness extends CollectorClient {
  dir: string;
  collector: CollectorApp;
  /** A fetch that hands every request to the app, as a socket would (Host from the URL); for clients under test. */
  fetch: typeof fetch;
}

/** The name an in-process collector goes by: its default address. */
export const IN_PROCESS_URL = 'http://127.0.0.1:7420';

/** `api()` over any fetch: the token unless `auth: false`, `duplex` for streamed bodies. */
function apiOver(
  fetcher: typeof fetch,
  base: () => string,
): (path: string, init?: RequestInit & { auth?: boolean }) => Promise<Response> {
  return (path, init = {}) => {
    const { auth, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (auth !== false && !headers.has('authorization')) headers.set('authorization', `Bearer ${TEST_TOKEN}`);
    const duplex = rest.body !== undefined && typeof rest.body !== 'string' ? { duplex: 'half' } : {};
    return fetcher(`${base()}${path}`, { ...rest, ...duplex, headers } as RequestInit);
  };
}

/**
 * A fetch answered by `app` in process: the request is built as fetch would build it, given the Host header a
 * socket would carry, and handed to the app. No port, no socket.
 *
 * @example const sink = new CollectorSink({ url: IN_PROCESS_URL, token, fetch: inProcessFetch(collector) });
 */
export function inProcessFetch(collector: CollectorApp): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (!request.headers.has('host')) request.headers.set('host', new URL(request.url).host);
    // fetch declares the length of a body it knows whole; the collector tells small uploads from large by it.
    const body = init?.body;
    if (!request.headers.has('content-length') && (typeof body === 'string' || body instanceof Uint8Array))
      request.headers.set(
        'content-length',
        String(typeof body === 'string' ? Buffer.byteLength(body) : body.length),
      );
    return collector.app.request(request);
  };
}

/**
 * Opens a collector app in process (openCollectorApp: store, hub, routes; no listener) on a fresh database before
 * each test and closes it after. Routes are called through `app.request`; sockets are for the live websocket.
 *
 * @example const h = useCollectorApp(); it('…', async () => { await h.api('/api/v1/traces'); });
 */
export function useCollectorApp(options: Partial<CollectorOptions> = {}): CollectorAppHarness {
  const harness = { url: IN_PROCESS_URL } as CollectorAppHarness;
  beforeEach(() => {
    harness.dir = scratchDir('tapedeck-collector-');
    harness.collector = openCollectorApp({
      dbPath: join(harness.dir, 'db', 'tapedeck.db'),
      token: TEST_TOKEN,
      viewerDir: join(harness.dir, 'no-viewer'),
      ...options,
    });
    harness.fetch = inProcessFetch(harness.collector);
    harness.api = apiOver(harness.fetch, () => harness.url);
  });
  afterEach(async () => {
    await harness.collector.close();
    rmSync(harness.dir, { recursive: true, force: true });
  });
  return harness;
}

/**
 * Starts a collector on an ephemeral port with a fresh database before each test and stops it after: for what
 * needs a socket (the live websocket, what only raw bytes on the wire can say).
 *
 * @example const h = useCollector(); it('…', async () => { await h.api('/api/v1/traces'); });
 */
export function useCollector(options: Partial<CollectorOptions> = {}): CollectorHarness {
  const harness = {} as CollectorHarness;
  beforeEach(async () => {
    harness.dir = scratchDir('tapedeck-collector-');
    harness.collector = await startCollector({
      dbPath: join(harness.dir, 'db', 'tapedeck.db'),
      token: TEST_TOKEN,
      port: 0,
      viewerDir: join(harness.dir, 'no-viewer'),
      ...options,
    });
    harness.url = harness.collector.url;
    harness.api = apiOver(fetch, () => harness.url);
  });
  afterEach(async () => {
    await harness.collector.close();
    rmSync(harness.dir, { recursive: true, force: true });
  });
  return harness;
}

const T0 = Date.parse('2026-03-01T10:00:00.000Z');

/**
 * A small tapedeck trace: meta, `calls` tools/call exchanges of `tool` (every `failEvery`-th one failing with
 * isError), then an end line.
 */
export function sampleTrace(
  options: {
    label?: string;
    tool?: string;
    calls?: number;
    failEvery?: number;
    server?: string;
    end?: boolean;
  } = {},
): string {
  const { label = 'sample', tool = 'echo', calls = 3, failEvery = 0, server, end = true } = options;
  const t = (ms: number) => new Date(T0 + ms).toISOString();
  const lines: unknown[] = [
    {
      v: 1,
      type: 'meta',
      startedAt: t(0),
      label,
      kind: 'mcp',
      producer: { name: 'tapedeck', version: 'test' },
      transport: 'stdio',
      ...(server === undefined ? {} : { server }),
    },
  ];
  let seq = 0;
  for (let i = 1; i <= calls; i += 1) {
    const failed = failEvery > 0 && i % failEvery === 0;
    lines.push({
      t: t(i * 10),
      seq: ++seq,
      dir: 'in',
      raw: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: tool, arguments: { n: i } } },
    });
    lines.push({
      t: t(i * 10 + 5),
      seq: ++seq,
      dir: 'out',
      raw: { jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text: `r${i}` }], isError: failed } },
    });
  }
  if (end)
    lines.push({ t: t(calls * 10 + 20), type: 'end', durationMs: calls * 10 + 20, reason: 'process_exit' });
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}

/** Uploads a trace body and returns the parsed 201 answer (throws on anything else). */
export async function upload(
  harness: CollectorClient,
  body: string,
  query = '',
): Promise<{ id: string; lines: number; format: string; trace: Record<string, unknown> }> {
  const response = await harness.api(`/api/v1/traces${query}`, { method: 'POST', body });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`upload answered ${response.status}: ${text}`);
  return JSON.parse(text);
}

/** A raw HTTP request, for headers fetch will not let a caller set (Host). */
export function rawRequest(
  url: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
        setHost: options.headers?.host === undefined,
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(parts).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A parsed JSON answer, loosely typed: tests assert on its shape. */
// biome-ignore lint/suspicious/noExplicitAny: assertions read arbitrary JSON answers
export type Loose = any;

/** The JSON body of a response (or of a response still on its way). */
export async function json(response: Response | Promise<Response>): Promise<Loose> {
  return (await response).json();
}

/** A port nothing listens on (taken from the system, then let go). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
