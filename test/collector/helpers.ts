import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type Collector, type CollectorOptions, startCollector } from '../../src/collector/index.js';

/** A fixed token for tests: 64 hex digits. */
export const TEST_TOKEN = 'ab'.repeat(32);

export interface CollectorHarness {
  dir: string;
  collector: Collector;
  url: string;
  /** fetch against the collector, with the token unless `auth: false`. */
  api(path: string, init?: RequestInit & { auth?: boolean }): Promise<Response>;
}

/**
 * Starts a collector on an ephemeral port with a fresh database before each test and stops it after.
 *
 * @example const h = useCollector(); it('…', async () => { await h.api('/api/v1/traces'); });
 */
export function useCollector(options: Partial<CollectorOptions> = {}): CollectorHarness {
  const harness = {} as CollectorHarness;
  beforeEach(async () => {
    harness.dir = mkdtempSync(join(tmpdir(), 'tapedeck-collector-'));
    harness.collector = await startCollector({
      dbPath: join(harness.dir, 'db', 'tapedeck.db'),
      token: TEST_TOKEN,
      port: 0,
      viewerDir: join(harness.dir, 'no-viewer'),
      ...options,
    });
    harness.url = harness.collector.url;
    harness.api = (path, init = {}) => {
      const { auth, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (auth !== false && !headers.has('authorization'))
        headers.set('authorization', `Bearer ${TEST_TOKEN}`);
      const duplex = rest.body !== undefined && typeof rest.body !== 'string' ? { duplex: 'half' } : {};
      return fetch(`${harness.url}${path}`, { ...rest, ...duplex, headers } as RequestInit);
    };
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
  harness: CollectorHarness,
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
