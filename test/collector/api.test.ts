import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { json, sampleTrace, upload, useCollectorApp } from './helpers.js';

const INTEROP = join(import.meta.dirname, '..', 'fixtures', 'interop');

describe('the collector API', () => {
  const h = useCollectorApp();

  it('stores an uploaded trace and gives it back line for line, as pages and as JSONL', async () => {
    const body = sampleTrace({ label: 'first', calls: 4, failEvery: 2 });
    const uploaded = await upload(h, body);
    expect(uploaded).toMatchObject({ lines: 8, format: 'tapedeck' });
    expect(uploaded.id).toMatch(/^[A-Za-z0-9_-]{16}$/);

    const summary = await json(h.api(`/api/v1/traces/${uploaded.id}`));
    expect(summary).toMatchObject({
      id: uploaded.id,
      label: 'first',
      state: 'complete',
      lines: 8,
      messages: { in: 4, out: 4 },
      errors: 2,
      lastSeq: 8,
      ended: true,
      endReason: 'process_exit',
      tools: [{ name: 'echo', calls: 4 }],
    });

    const page1 = await json(h.api(`/api/v1/traces/${uploaded.id}/lines?limit=5`));
    expect(page1.lines.map((l: { seq: number }) => l.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(page1.next).toBe(5);
    expect(page1.end).toBeNull();
    const page2 = await json(h.api(`/api/v1/traces/${uploaded.id}/lines?after=5&limit=5`));
    expect(page2.lines.map((l: { seq: number }) => l.seq)).toEqual([6, 7, 8]);
    expect(page2.next).toBeNull();
    expect(page2.end).toMatchObject({ type: 'end', reason: 'process_exit' });

    const failed = await json(h.api(`/api/v1/traces/${uploaded.id}/lines?tool=echo&errors=true`));
    expect(failed.lines.map((l: { seq: number }) => l.seq)).toEqual([4, 8]);

    const jsonl = await (await h.api(`/api/v1/traces/${uploaded.id}/trace.jsonl`)).text();
    expect(jsonl.split('\n').map((l) => (l === '' ? l : JSON.parse(l)))).toEqual(
      body.split('\n').map((l) => (l === '' ? l : JSON.parse(l))),
    );
  });

  it('searches by label, server, tool, method, errors and start time, newest first, in pages', async () => {
    const a = await upload(h, sampleTrace({ label: 'alpha run', tool: 'echo', server: 'everything' }));
    const b = await upload(h, sampleTrace({ label: 'beta run', tool: 'add', failEvery: 1 }));
    const c = await upload(h, sampleTrace({ label: 'gamma', tool: 'add' }));
    const ids = async (query: string) =>
      ((await json(h.api(`/api/v1/traces${query}`))).traces as { id: string }[]).map((t) => t.id);
    expect(await ids('')).toEqual([c.id, b.id, a.id]);
    expect(await ids('?label=RUN')).toEqual([b.id, a.id]);
    expect(await ids('?server=everything')).toEqual([a.id]);
    expect(await ids('?tool=add')).toEqual([c.id, b.id]);
    expect(await ids('?tool=add&errors=true')).toEqual([b.id]);
    expect(await ids('?errors=false')).toEqual([c.id, a.id]);
    expect(await ids('?method=tools/call&label=gam')).toEqual([c.id]);
    expect(await ids('?from=2026-03-01T09:00:00Z&to=2026-03-01T11:00:00Z')).toHaveLength(3);
    expect(await ids('?from=2026-03-02T00:00:00Z')).toEqual([]);
    const first = await json(h.api('/api/v1/traces?limit=2'));
    expect(first.traces.map((t: { id: string }) => t.id)).toEqual([c.id, b.id]);
    const second = await json(h.api(`/api/v1/traces?limit=2&before=${first.next}`));
    expect(second.traces.map((t: { id: string }) => t.id)).toEqual([a.id]);
    expect(second.next).toBeNull();
  });

  it('reads every importable format: mcp-tape, mcporter NDJSON, shack JSON, HTTP exchanges', async () => {
    const cases = [
      ['mcp-tape/everything-stdio.jsonl', 'mcp-tape'],
      ['mcporter/everything-get-sum.ndjson', 'mcporter'],
      ['shack/my_session.json', 'shack'],
      ['era2026/era2026-http-exchanges.json', 'http-exchanges'],
    ] as const;
    for (const [file, format] of cases) {
      const uploaded = await upload(h, readFileSync(join(INTEROP, file), 'utf8'));
      expect(uploaded.format, file).toBe(format);
      expect(uploaded.lines, file).toBeGreaterThan(0);
      const page = await json(h.api(`/api/v1/traces/${uploaded.id}/lines?limit=5000`));
      expect(page.lines).toHaveLength(uploaded.lines);
      // mcp-tape lines have no seq: the store numbers them 1, 2, 3 …
      expect(page.lines.map((l: { seq: number }) => l.seq)).toEqual(
        page.lines.map((_: unknown, i: number) => i + 1),
      );
    }
  });

  it('splits lines at any chunk boundary: CRLF, blank lines, multi-byte text, a cut-off last line', async () => {
    const lines = sampleTrace({ calls: 3, end: false }).trimEnd().split('\n');
    lines[2] = lines[2]!.replace('"r1"', '"r1 — ünïcödé ✓ 🎞"');
    const text = `${lines.join('\r\n')}\r\n\r\n\n{"t":"2026-03-01T10:00:01.000Z","seq":7,"dir":"in","raw":{"js`;
    const bytes = new TextEncoder().encode(text);
    const response = await h.api('/api/v1/traces', {
      method: 'POST',
      body: new ReadableStream({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 7) controller.enqueue(bytes.slice(at, at + 7));
          controller.close();
        },
      }),
    });
    expect(response.status).toBe(201);
    const uploaded = await json(response);
    expect(uploaded.lines).toBe(6);
    expect(uploaded.warnings).toEqual([expect.stringMatching(/^line 10: the last line is cut off/)]);
    const page = await json(h.api(`/api/v1/traces/${uploaded.id}/lines`));
    expect(page.lines[1].raw.result.content[0].text).toBe('r1 — ünïcödé ✓ 🎞');
  });

  it('names a line that is not UTF-8', async () => {
    const head = new TextEncoder().encode(sampleTrace({ calls: 1, end: false }));
    const bad = Uint8Array.from([
      ...head,
      ...new TextEncoder().encode('{"t":"x","dir":"in","raw":"'),
      0xff,
      0xfe,
      34,
      125,
      10,
    ]);
    const response = await h.api('/api/v1/traces', { method: 'POST', body: bad });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ line: 4, message: 'line 4: not valid UTF-8' });
  });

  it('deletes a trace: gone from the list, its pages 404', async () => {
    const { id } = await upload(h, sampleTrace());
    const deleted = await h.api(`/api/v1/traces/${id}`, { method: 'DELETE' });
    expect(await json(deleted)).toEqual({ deleted: id });
    expect((await h.api(`/api/v1/traces/${id}/lines`)).status).toBe(404);
    expect((await json(h.api('/api/v1/traces'))).traces).toEqual([]);
  });

  it('shares one trace read-only: the link reads that trace without the token until revoked', async () => {
    const { id } = await upload(h, sampleTrace({ label: 'shared' }));
    const created = await h.api(`/api/v1/traces/${id}/shares`, {
      method: 'POST',
      body: '{"expiresIn":"1d"}',
    });
    expect(created.status).toBe(201);
    const share = await json(created);
    expect(share.id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(share.url).toBe(`${h.url}/#share=${share.id}`);
    expect(Date.parse(share.expiresAt) - Date.parse(share.createdAt)).toBe(86_400_000);

    const read = await h.api(`/api/v1/shares/${share.id}`, { auth: false });
    expect(await json(read)).toMatchObject({ trace: { id, label: 'shared' }, share: { revoked: false } });
    const lines = await json(h.api(`/api/v1/shares/${share.id}/lines`, { auth: false }));
    expect(lines.lines).toHaveLength(6);
    const jsonl = await (await h.api(`/api/v1/shares/${share.id}/trace.jsonl`, { auth: false })).text();
    expect(jsonl).toContain('"label":"shared"');
    expect((await h.api(`/api/v1/traces/${id}/shares`, { auth: false })).status).toBe(401);
    const listed = await json(h.api(`/api/v1/traces/${id}/shares`));
    expect(listed.shares.map((s: { id: string }) => s.id)).toEqual([share.id]);
    // Every share of every trace, for the token holder only.
    expect((await h.api('/api/v1/shares', { auth: false })).status).toBe(401);
    const all = await json(h.api('/api/v1/shares'));
    expect(all.shares).toEqual([
      { id: share.id, traceId: id, createdAt: share.createdAt, expiresAt: share.expiresAt, revoked: false },
    ]);

    expect(await json(h.api(`/api/v1/shares/${share.id}`, { method: 'DELETE' }))).toEqual({
      revoked: share.id,
    });
    const revoked = await h.api(`/api/v1/shares/${share.id}/lines`, { auth: false });
    expect(revoked.status).toBe(410);
    expect((await json(revoked)).error.message).toContain('revoked');
  });

  it('serves a page saying the viewer is not built when dist/viewer is missing', async () => {
    const response = await h.api('/', { auth: false });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('viewer is not built');
  });
});
