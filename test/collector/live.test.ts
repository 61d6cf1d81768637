import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { json, type Loose, sampleTrace, TEST_TOKEN, useCollector } from './helpers.js';

/** A websocket client that keeps every frame and how the socket ended. */
function watch(url: string, options: { protocols?: string[]; headers?: Record<string, string> } = {}) {
  const frames: Loose[] = [];
  const ws = new WebSocket(url, options.protocols ?? [], { headers: options.headers ?? {} });
  let pings = 0;
  const closed = new Promise<{ code: number }>((resolve) => ws.on('close', (code) => resolve({ code })));
  const refused = new Promise<number>((resolve) =>
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
  );
  ws.on('message', (data) => frames.push(JSON.parse(String(data))));
  ws.on('ping', () => {
    pings += 1;
  });
  ws.on('error', () => {});
  const until = async (predicate: () => boolean, what: string) => {
    const deadline = Date.now() + 10_000;
    while (!predicate()) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(frames).slice(0, 500)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return {
    ws,
    frames,
    closed,
    refused,
    pings: () => pings,
    until,
    seqs: () =>
      frames.filter((f) => f.type === 'lines').flatMap((f) => f.lines.map((l: { seq: number }) => l.seq)),
    opened: () =>
      new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('close', () => reject(new Error('closed before open')));
      }),
  };
}

const wsUrl = (http: string, path: string) => `${http.replace(/^http/, 'ws')}${path}`;

/** Lines of sampleTrace split into meta, records and end. */
function parts(calls: number) {
  const lines = sampleTrace({ calls }).trimEnd().split('\n');
  return { meta: lines[0]!, records: lines.slice(1, -1), end: lines[lines.length - 1]! };
}

describe('the live websocket', () => {
  // Pings every 500 ms: often enough to see one, rarely enough that a loaded machine still answers in time.
  const h = useCollector({ live: { heartbeatMs: 500 } });
  const append = async (id: string, lines: string[]) => {
    const response = await h.api(`/api/v1/traces/${id}/lines`, {
      method: 'POST',
      body: `${lines.join('\n')}\n`,
    });
    expect(response.status).toBe(200);
    return json(response);
  };

  it('sends the snapshot, then appends as they are committed, then end; pings meanwhile', async () => {
    const { id } = await json(h.api('/api/v1/traces/live', { method: 'POST', body: '{"label":"live one"}' }));
    const { meta, records, end } = parts(4);
    await append(id, [meta, ...records.slice(0, 3)]);
    const viewer = watch(wsUrl(h.url, `/api/v1/traces/${id}/live`));
    await viewer.until(() => viewer.seqs().length === 3, 'the snapshot');
    await viewer.until(() => viewer.pings() > 0, 'a ping');
    expect(await append(id, records.slice(3))).toMatchObject({ appended: 5, lastSeq: 8, ended: false });
    await viewer.until(() => viewer.seqs().length === 8, 'the appends');
    await append(id, [end]);
    expect((await viewer.closed).code).toBe(1000);
    expect(viewer.seqs()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(viewer.frames.at(-1)).toMatchObject({
      type: 'end',
      line: { type: 'end', reason: 'process_exit' },
    });
    expect(await json(h.api(`/api/v1/traces/${id}`))).toMatchObject({
      label: 'live one',
      state: 'complete',
      lines: 8,
    });
  });

  it('resumes after `since` and skips lines a retried append sends again', async () => {
    const { id } = await json(h.api('/api/v1/traces/live', { method: 'POST' }));
    const { meta, records } = parts(3);
    await append(id, [meta, ...records.slice(0, 4)]);
    expect(await append(id, records.slice(2))).toMatchObject({ appended: 2, duplicates: 2, lastSeq: 6 });
    const viewer = watch(wsUrl(h.url, `/api/v1/traces/${id}/live?since=4`));
    await viewer.until(() => viewer.seqs().length === 2, 'the lines after 4');
    expect(viewer.seqs()).toEqual([5, 6]);
    viewer.ws.close();
  });
});

describe('the live websocket with a slow viewer', () => {
  // A paused viewer answers no pings: the heartbeat stays at its default so only the send buffer is tested.
  const h = useCollector({ live: { maxBufferedBytes: 256 * 1024 } });
  const append = async (id: string, lines: string[]) => {
    const response = await h.api(`/api/v1/traces/${id}/lines`, {
      method: 'POST',
      body: `${lines.join('\n')}\n`,
    });
    expect(response.status).toBe(200);
  };

  it('tells a viewer too slow to keep up how many lines it missed, and nothing is lost for the store', async () => {
    const { id } = await json(h.api('/api/v1/traces/live', { method: 'POST' }));
    const { meta } = parts(1);
    await append(id, [meta]);
    const viewer = watch(wsUrl(h.url, `/api/v1/traces/${id}/live`));
    await viewer.opened();
    viewer.ws.pause();
    const pad = 'x'.repeat(64 * 1024);
    const total = 400;
    for (let seq = 1; seq <= total; seq += 20) {
      const batch = [];
      for (let i = seq; i < seq + 20; i += 1)
        batch.push(JSON.stringify({ t: '2026-03-01T10:00:00.000Z', seq: i, type: 'stderr', text: pad }));
      await append(id, batch);
    }
    viewer.ws.resume();
    const dropped = () =>
      viewer.frames.filter((f) => f.type === 'dropped').reduce((sum, f) => sum + f.count, 0);
    await viewer.until(
      () => dropped() > 0 && viewer.seqs().length + dropped() === total,
      'every line sent or counted',
    );
    expect(dropped()).toBeGreaterThan(0);
    expect(viewer.seqs()).toEqual([...viewer.seqs()].sort((a, b) => a - b));
    expect((await json(h.api(`/api/v1/traces/${id}`))).lines).toBe(total);
    viewer.ws.close();
  });
});

describe('the live websocket of a collector whose reads need the token', () => {
  const h = useCollector({ requireReadToken: true });

  it('takes the token as a query or a subprotocol or a share link, and refuses a missing token or a foreign Origin', async () => {
    const { id } = await json(h.api('/api/v1/traces/live', { method: 'POST' }));
    const path = `/api/v1/traces/${id}/live`;
    expect(await watch(wsUrl(h.url, path)).refused).toBe(401);
    expect(await watch(wsUrl(h.url, `${path}?token=${'00'.repeat(32)}`)).refused).toBe(401);
    const byQuery = watch(wsUrl(h.url, `${path}?token=${TEST_TOKEN}`));
    await byQuery.opened();
    byQuery.ws.close();
    const byProtocol = watch(wsUrl(h.url, path), { protocols: ['tapedeck', `tapedeck.token.${TEST_TOKEN}`] });
    await byProtocol.opened();
    expect(byProtocol.ws.protocol).toBe('tapedeck');
    byProtocol.ws.close();
    const foreign = watch(wsUrl(h.url, `${path}?token=${TEST_TOKEN}`), {
      headers: { origin: 'https://evil.example' },
    });
    expect(await foreign.refused).toBe(403);
    const share = await json(h.api(`/api/v1/traces/${id}/shares`, { method: 'POST' }));
    const byShare = watch(wsUrl(h.url, `/api/v1/shares/${share.id}/live`));
    await byShare.opened();
    byShare.ws.close();
  });
});
