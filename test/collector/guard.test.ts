import { describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { json, rawRequest, sampleTrace, upload, useCollector, useCollectorApp } from './helpers.js';

describe('collector access checks', () => {
  const h = useCollectorApp({ maxBodyBytes: 4096 });

  it('refuses writes without the token, and with a wrong one, saying which', async () => {
    const none = await h.api('/api/v1/traces', { method: 'POST', body: sampleTrace(), auth: false });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    expect((await json(none)).error).toMatchObject({
      code: 'unauthorized',
      message: expect.stringContaining('needs'),
    });
    const wrong = await h.api('/api/v1/traces/live', {
      method: 'POST',
      headers: { authorization: `Bearer ${'cd'.repeat(32)}` },
    });
    expect(wrong.status).toBe(401);
    expect((await json(wrong)).error.message).toContain('wrong');
    expect((await json(h.api('/api/v1/traces'))).traces).toEqual([]);
  });

  it('answers 403 to a foreign Host and a foreign Origin, even with the token', async () => {
    const port = new URL(h.url).port;
    const host = await h.api('/api/v1/traces', { headers: { host: `evil.example:${port}` } });
    expect(host.status).toBe(403);
    expect((await json(host)).error.message).toContain(`Host 'evil.example:${port}' is not allowed`);
    const origin = await h.api('/api/v1/traces', { headers: { origin: 'https://evil.example' } });
    expect(origin.status).toBe(403);
    expect((await json(origin)).error.message).toContain("Origin 'https://evil.example'");
    const page = await h.api('/', { auth: false, headers: { host: `rebound.example:${port}` } });
    expect(page.status).toBe(403);
    const local = await h.api('/api/v1/health', {
      auth: false,
      headers: { host: `localhost:${port}`, origin: `http://localhost:${port}` },
    });
    expect(local.status).toBe(200);
  });

  it('answers 413 naming the limit, for a declared length and for a streamed body', async () => {
    const big = sampleTrace({ calls: 100 });
    const declared = await h.api('/api/v1/traces', { method: 'POST', body: big });
    expect(declared.status).toBe(413);
    expect((await json(declared)).error.message).toContain('limit of 4 KiB (4096 bytes)');
    const bytes = new TextEncoder().encode(big);
    const streamed = await h.api('/api/v1/traces', {
      method: 'POST',
      body: new ReadableStream({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 1000) controller.enqueue(bytes.subarray(at, at + 1000));
          controller.close();
        },
      }),
    });
    expect(streamed.status).toBe(413);
    expect((await json(streamed)).error.limit).toBe(4096);
    expect((await json(h.api('/api/v1/traces'))).traces).toEqual([]);
  });

  it('answers 400 naming the malformed line, and keeps nothing of that upload', async () => {
    const lines = sampleTrace().split('\n');
    lines[3] = '{"t":"2026-03-01T10:00:00.000Z","seq":3,"dir":"in","raw":{"jsonrpc":';
    const response = await h.api('/api/v1/traces', { method: 'POST', body: lines.join('\n') });
    expect(response.status).toBe(400);
    const { error } = await json(response);
    expect(error).toMatchObject({ code: 'malformed_line', line: 4 });
    expect(error.message).toMatch(/^line 4: not valid JSON/);
    const wrongDir = sampleTrace().replace('"dir":"out"', '"dir":"sideways"');
    const second = await json(h.api('/api/v1/traces', { method: 'POST', body: wrongDir }));
    expect(second.error.message).toBe('line 3: message line: "dir" must be "in" or "out", got "sideways"');
    expect((await json(h.api('/api/v1/traces'))).traces).toEqual([]);
  });
});

describe('collector rate limit', () => {
  const clock = new ManualClock();
  const h = useCollectorApp({ rateLimit: { burst: 3, perSecond: 0.01 }, scheduler: clock });

  it('answers 429 with Retry-After once a client has used up its bucket, and takes it again once refilled', async () => {
    for (let i = 0; i < 3; i += 1) expect((await h.api('/api/v1/health')).status).toBe(200);
    const limited = await h.api('/api/v1/health');
    expect(limited.status).toBe(429);
    // One token comes back every 100 s.
    expect(limited.headers.get('retry-after')).toBe('100');
    expect((await json(limited)).error.code).toBe('rate_limited');
    await clock.advance(60_000);
    expect((await h.api('/api/v1/health')).headers.get('retry-after')).toBe('40');
    await clock.advance(40_000);
    expect((await h.api('/api/v1/health')).status).toBe(200);
    expect((await h.api('/api/v1/health')).status).toBe(429);
  });
});

describe('a collector whose reads need the token', () => {
  const h = useCollectorApp({ requireReadToken: true });

  it('reads only with the token; a share link opens its one trace and nothing else', async () => {
    const { id } = await upload(h, sampleTrace({ label: 'shared' }));
    const other = await upload(h, sampleTrace({ label: 'private' }));
    expect((await h.api('/api/v1/traces', { auth: false })).status).toBe(401);
    expect((await h.api(`/api/v1/traces/${id}/lines`, { auth: false })).status).toBe(401);
    const share = await json(h.api(`/api/v1/traces/${id}/shares`, { method: 'POST' }));
    const read = await h.api(`/api/v1/shares/${share.id}/lines`, { auth: false });
    expect(read.status).toBe(200);
    expect((await json(read)).id).toBe(id);
    expect((await h.api(`/api/v1/traces/${other.id}`, { auth: false })).status).toBe(401);
    expect((await h.api(`/api/v1/traces/${other.id}/shares`, { auth: false, method: 'POST' })).status).toBe(
      401,
    );
    expect((await h.api(`/api/v1/shares/${share.id}`, { auth: false, method: 'DELETE' })).status).toBe(401);
  });
});

describe('collector access checks on the wire', () => {
  // A socket, because these requests are what only raw bytes can say: a URL's `..` segments as sent (fetch and
  // Request resolve them before anything is sent).
  const h = useCollector();

  it('answers 400 or 404 to malformed ids and path tricks, never a file', async () => {
    for (const path of [
      '/api/v1/traces/..%2F..%2F..%2Fetc%2Fpasswd',
      '/api/v1/traces/%2e%2e%2f%2e%2e%2fetc',
      '/api/v1/traces/short/lines',
      '/api/v1/shares/..%2Fx/lines',
    ]) {
      const response = await rawRequest(h.url, { path });
      expect(response.status, path).toBe(400);
      expect(JSON.parse(response.body).error.code, path).toBe('bad_id');
    }
    expect((await rawRequest(h.url, { path: '/api/v1/traces/AAAAAAAAAAAAAAAA' })).status).toBe(404);
    expect((await rawRequest(h.url, { path: `/api/v1/shares/${'A'.repeat(32)}` })).status).toBe(404);
    for (const path of ['/../../../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/..%2f..%2fetc%2fpasswd']) {
      const response = await rawRequest(h.url, { path });
      expect(response.status, path).toBe(404);
      expect(response.body, path).not.toContain('root:');
    }
  });
});
