import { describe, expect, it } from 'vitest';
import { type LiveIds, rewriteResponse, rewriteServerMessage } from '../../../src/replay/engine/rewrite.js';
import { note } from '../helpers.js';

const live = (over: Partial<LiveIds> = {}): LiveIds => ({
  id: 'live-1',
  progressToken: 'live-token',
  ids: new Map(),
  subscriptions: new Map(),
  ...over,
});

describe('rewriting recorded server messages for the live session', () => {
  it('puts the live id on the response and leaves the recording untouched', () => {
    const recorded = { jsonrpc: '2.0', id: 6, result: { content: [] } };
    expect(rewriteResponse(recorded, 'live-1')).toEqual({
      jsonrpc: '2.0',
      id: 'live-1',
      result: { content: [] },
    });
    expect(recorded.id).toBe(6);
  });

  it('moves progress to the live token, or drops it when the live request asked for none', () => {
    const progress = note('notifications/progress', { progressToken: 13, progress: 1, total: 4 });
    expect(rewriteServerMessage(progress, live(), undefined)).toEqual(
      note('notifications/progress', { progressToken: 'live-token', progress: 1, total: 4 }),
    );
    expect(rewriteServerMessage(progress, live({ progressToken: undefined }), undefined)).toBeUndefined();
    expect((progress.params as { progressToken: number }).progressToken).toBe(13);
  });

  it('points a server cancellation at the live id of what it cancels', () => {
    const cancel = note('notifications/cancelled', { requestId: 2, reason: 'timeout' });
    const ids = new Map([['n:2', 7]]);
    expect(rewriteServerMessage(cancel, live({ ids }), undefined)?.params).toEqual({
      requestId: 7,
      reason: 'timeout',
    });
    expect(rewriteServerMessage(cancel, live(), undefined)?.params).toEqual({
      requestId: 2,
      reason: 'timeout',
    });
  });

  it('carries the live listen id as subscriptionId, and drops notifications of a subscription the client lacks', () => {
    const changed = note('notifications/tools/list_changed', {
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen:0' },
    });
    const subscriptions = new Map([[7, 'sub-live']]);
    expect(rewriteServerMessage(changed, live({ subscriptions }), 7)?.params).toEqual({
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-live' },
    });
    expect(rewriteServerMessage(changed, live(), 7)).toBeUndefined();
  });

  it('leaves other messages as they were recorded', () => {
    const log = note('notifications/message', { level: 'info', data: 'hi' });
    expect(rewriteServerMessage(log, live(), undefined)).toEqual(log);
  });
});
