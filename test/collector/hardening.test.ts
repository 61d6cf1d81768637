/**
 * The collector attacked while it runs: a page on another local origin reading a live trace, a share link's socket
 * outliving the share, a client without the token using up the token holder's rate limit, uploads whose lines or
 * numbers would take the collector's memory, and the viewer framed by another site.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { LineBatch } from '../../src/collector/store.js';
import { flush, ManualClock } from '../helpers/clock.js';
import { json, sampleTrace, TEST_TOKEN, upload, useCollector, useCollectorApp } from './helpers.js';

const wsUrl = (http: string, path: string) => `${http.replace(/^http/, 'ws')}${path}`;

/** A websocket that resolves how it went: opened (and later closed with a code) or refused with a status. */
function socket(url: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(url, [], { headers });
  const frames: unknown[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(String(data))));
  ws.on('error', () => {});
  return {
    ws,
    frames,
    opened: new Promise<boolean>((resolve) => {
      ws.once('open', () => resolve(true));
      ws.once('unexpected-response', () => resolve(false));
    }),
    refused: new Promise<number>((resolve) =>
      ws.on('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0)),
    ),
    closed: new Promise<{ code: number; reason: string }>((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
    ),
  };
}

/** Resolves with `value` after `ms`, for "this has not happened yet" checks. */
const delay = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('the collector against a page on another local origin', () => {
  const h = useCollector();

  it('refuses the live websocket to a page on http://localhost:8080, without the token as with it', async () => {
    const { id } = await json(h.api('/api/v1/traces/live', { method: 'POST' }));
    const path = `/api/v1/traces/${id}/live`;
    const port = new URL(h.url).port;
    for (const origin of [
      'http://localhost:8080',
      `http://localhost:${Number(port) + 1}`,
      `https://127.0.0.1:${port}`,
    ]) {
      expect(await socket(wsUrl(h.url, path), { origin }).refused).toBe(403);
      expect(await socket(wsUrl(h.url, `${path}?token=${TEST_TOKEN}`), { origin }).refused).toBe(403);
    }
    const own = socket(wsUrl(h.url, path), { origin: `http://127.0.0.1:${port}` });
    expect(await own.opened).toBe(true);
    own.ws.close();
  });

  it('answers 400 to a websocket upgrade with two Host headers', async () => {
    const { id } = await json(h.api('/api/v1/traces/live', { method: 'POST' }));
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${h.url}/api/v1/traces/${id}/live`, {
        headers: [
          ['Host', new URL(h.url).host],
          ['Host', 'evil.example'],
          ['Connection', 'Upgrade'],
          ['Upgrade', 'websocket'],
          ['Sec-WebSocket-Version', '13'],
          ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='],
        ].flat(),
        setHost: false,
      });
      req.on('response', (res) => resolve(res.statusCode ?? 0));
      req.on('upgrade', () => resolve(101));
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
  });

  it('serves the viewer with a content security policy and no framing', async () => {
    const viewer = join(h.dir, 'viewer');
    mkdirSync(join(viewer, 'assets'), { recursive: true });
    writeFileSync(join(viewer, 'index.html'), '<!doctype html><title>v</title>');
    writeFileSync(join(viewer, 'assets', 'app.js'), 'console.log(1)');
    // The harness's collector has no viewer built; the not-built page is served with the same headers.
    for (const path of ['/', '/index.html']) {
      const page = await h.api(path, { auth: false });
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });
});

describe('the collector viewer files', () => {
  const h = useCollectorApp({ viewerDir: join(import.meta.dirname, '..', '..', 'dist', 'viewer') });

  it('sends the policy with the built viewer and its assets', async () => {
    const page = await h.api('/', { auth: false });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const asset = /src="\.?\/?(assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
    expect(asset).toBeDefined();
    const script = await h.api(`/${asset}`, { auth: false });
    expect(script.status).toBe(200);
    expect(script.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('share links and their live websocket', () => {
  // Expiry on a hand-moved clock: the socket is open a millisecond before the share ends and closed at it.
  const clock = new ManualClock();
  const h = useCollector({ scheduler: clock });

  it('closes a share link socket when the share expires, as its REST reads turn 410', async () => {
    const { id } = await json(h.api('/api/v1/traces/live', { method: 'POST' }));
    const share = await json(
      h.api(`/api/v1/traces/${id}/shares`, { method: 'POST', body: '{"expiresIn":1}' }),
    );
    const live = socket(wsUrl(h.url, `/api/v1/shares/${share.id}/live`));
    expect(await live.opened).toBe(true);
    await clock.advance(999);
    expect((await h.api(`/api/v1/shares/${share.id}/lines`, { auth: false })).status).toBe(200);
    expect(live.ws.readyState).toBe(WebSocket.OPEN);
    await clock.advance(1);
    expect(await live.closed).toEqual({ code: 4410, reason: 'share expired' });
    expect((await h.api(`/api/v1/shares/${share.id}/lines`, { auth: false })).status).toBe(410);
  });

  it('closes a share link socket when the share is revoked, and leaves the token holder’s socket open', async () => {
    const { id } = await json(h.api('/api/v1/traces/live', { method: 'POST' }));
    const share = await json(h.api(`/api/v1/traces/${id}/shares`, { method: 'POST' }));
    const shared = socket(wsUrl(h.url, `/api/v1/shares/${share.id}/live`));
    const own = socket(wsUrl(h.url, `/api/v1/traces/${id}/live`));
    expect(await shared.opened).toBe(true);
    expect(await own.opened).toBe(true);
    await h.api(`/api/v1/shares/${share.id}`, { method: 'DELETE' });
    expect(await Promise.race([shared.closed, delay(5000, { code: 0, reason: 'still open' })])).toEqual({
      code: 4410,
      reason: 'share revoked',
    });
    expect(own.ws.readyState).toBe(WebSocket.OPEN);
    own.ws.close();
  });
});

describe('rate limits', () => {
  const h = useCollectorApp({ rateLimit: { burst: 3, perSecond: 0.01 } });

  it('counts requests without the token apart: they cannot use up the token holder’s bucket', async () => {
    for (let i = 0; i < 5; i += 1) await h.api('/api/v1/traces', { auth: false });
    expect((await h.api('/api/v1/traces', { auth: false })).status).toBe(429);
    // A wrong token is no token.
    expect(
      (await h.api('/api/v1/traces', { headers: { authorization: `Bearer ${'cd'.repeat(32)}` } })).status,
    ).toBe(429);
    const response = await h.api('/api/v1/traces', { method: 'POST', body: sampleTrace() });
    expect(response.status).toBe(201);
    // The token holder has a bucket of its own, as limited.
    await h.api('/api/v1/traces');
    await h.api('/api/v1/traces');
    expect((await h.api('/api/v1/traces')).status).toBe(429);
  });

  it('gives each team token a bucket of its own, apart from anonymous requests and from each other', async () => {
    const first = await h.collector.store.createToken('write', 'ci', Date.now());
    const second = await h.collector.store.createToken('read', 'dashboards', Date.now());
    const as = (secret: string) => ({ headers: { authorization: `Bearer ${secret}` } });
    for (let i = 0; i < 3; i += 1) await h.api('/api/v1/traces', { auth: false });
    expect((await h.api('/api/v1/traces', { auth: false })).status).toBe(429);
    // A made-up team token is no token: it is limited with the anonymous requests.
    const madeUp = await h.api('/api/v1/traces', as(`tdk_${'x'.repeat(43)}`));
    expect(madeUp.status).toBe(429);
    // Each team token has a bucket of its own, as limited.
    expect(
      (await h.api('/api/v1/traces', { method: 'POST', body: sampleTrace(), ...as(first.secret) })).status,
    ).toBe(201);
    expect((await h.api('/api/v1/traces', as(first.secret))).status).toBe(200);
    expect((await h.api('/api/v1/traces', as(first.secret))).status).toBe(200);
    expect((await h.api('/api/v1/traces', as(first.secret))).status).toBe(429);
    // The other team token and the collector's token still have theirs.
    for (let i = 0; i < 3; i += 1)
      expect((await h.api('/api/v1/traces', as(second.secret))).status).toBe(200);
    expect((await h.api('/api/v1/traces', as(second.secret))).status).toBe(429);
    expect((await h.api('/api/v1/traces')).status).toBe(200);
  });
});

describe('upload memory bounds', () => {
  const h = useCollectorApp({ uploads: { maxLineBytes: 64 * 1024, batchBytes: 256 * 1024, concurrent: 1 } });

  /** A body the test feeds by hand, that counts how often the collector asked for more (never, until read). */
  function handFed() {
    let feed!: ReadableStreamDefaultController<Uint8Array>;
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          feed = controller;
        },
        pull() {
          pulls += 1;
        },
      },
      { highWaterMark: 0 },
    );
    const bytes = (text: string) => feed.enqueue(new TextEncoder().encode(text));
    return { stream, write: bytes, end: () => feed.close(), pulls: () => pulls };
  }

  it('refuses a line over the line limit as soon as it passes the limit, naming the line and the limit', async () => {
    const meta = `${sampleTrace().split('\n')[0]}\n`;
    const body = handFed();
    body.write(meta);
    // 1 MB of one line, then nothing: the body never ends, so only an early answer can come back.
    const chunk = 'x'.repeat(16 * 1024);
    for (let i = 0; i < 64; i += 1) body.write(chunk);
    const answer = await h.api('/api/v1/traces', { method: 'POST', body: body.stream });
    expect(answer.status).toBe(413);
    expect((await json(answer)).error).toMatchObject({
      code: 'payload_too_large',
      line: 2,
      limit: 65536,
      message:
        'line 2 is longer than the limit of 64 KiB for one line; start the collector with a larger --max-line',
    });
    expect((await json(h.api('/api/v1/traces'))).traces).toEqual([]);
  });

  it('writes batches of at most batchBytes (plus one line), however many lines fit the line count', async () => {
    const sizes: number[] = [];
    const store = h.collector.store;
    const write = store.write.bind(store);
    store.write = (n: number, batch: LineBatch, mode: Parameters<typeof write>[2]) => {
      sizes.push(batch.records.reduce((sum, record) => sum + record.text.length, 0));
      return write(n, batch, mode);
    };
    const lines = sampleTrace({ calls: 1 }).split('\n');
    const pad = 'y'.repeat(20 * 1024);
    const records = Array.from({ length: 100 }, (_, i) =>
      JSON.stringify({
        t: '2026-03-01T10:00:00.000Z',
        seq: i + 1,
        dir: 'in',
        raw: { jsonrpc: '2.0', method: 'x', params: { pad } },
      }),
    );
    const result = await upload(h, `${lines[0]}\n${records.join('\n')}\n`);
    expect(result.lines).toBe(100);
    expect(sizes.length).toBeGreaterThan(5);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(256 * 1024 + 21 * 1024);
  });

  it('holds a second large upload until the first is done, without reading its body', async () => {
    const body = sampleTrace({ calls: 2 });
    const [head, ...rest] = body.split('\n');
    const firstBody = handFed();
    firstBody.write(`${head}\n`);
    const first = h.api('/api/v1/traces', { method: 'POST', body: firstBody.stream });
    await flush();
    expect(firstBody.pulls()).toBeGreaterThan(0);
    // A small body of a known length is not held behind a large one.
    expect((await h.api('/api/v1/traces', { method: 'POST', body })).status).toBe(201);
    const secondBody = handFed();
    secondBody.write(body);
    secondBody.end();
    let secondDone = false;
    const second = h.api('/api/v1/traces', { method: 'POST', body: secondBody.stream }).then((response) => {
      secondDone = true;
      return response;
    });
    await flush();
    expect(secondDone).toBe(false);
    expect(secondBody.pulls()).toBe(0);
    firstBody.write(rest.join('\n'));
    firstBody.end();
    expect((await first).status).toBe(201);
    expect((await second).status).toBe(201);
    expect((await json(h.api('/api/v1/traces'))).traces).toHaveLength(3);
  });
});
