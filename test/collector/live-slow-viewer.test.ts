/**
 * The live websocket against a real, paused socket. The hub's drop accounting is tested exactly with sockets the
 * test fills by hand (live-hub.test.ts); this is the same behaviour through `ws` and the kernel, which only tens
 * of MB written to loopback fill — seconds of work, so it runs in the e2e project (test/projects.ts).
 */
import { describe, expect, it } from 'vitest';
import { json, useCollector } from './helpers.js';
import { parts, watch, wsUrl } from './ws.js';

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
