import { describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { json, TEST_TOKEN, useCollector } from './helpers.js';
import { parts, watch, wsUrl } from './ws.js';

describe('the live websocket', () => {
  // The heartbeat runs on a hand-moved clock: a ping goes out when the test moves it, not when a timer happens to.
  const clock = new ManualClock();
  const h = useCollector({ live: { heartbeatMs: 500 }, scheduler: clock });
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
    expect(viewer.pings()).toBe(0);
    await clock.advance(500);
    await viewer.until(() => viewer.pings() === 1, 'a ping');
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
