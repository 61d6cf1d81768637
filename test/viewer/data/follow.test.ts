import { describe, expect, it } from 'vitest';
import { FollowState } from '../../../viewer/src/data/follow.js';

describe('the state of a trace followed while it is recorded', () => {
  it('tells the snapshot from the lines recorded after the page opened the trace', () => {
    const follow = new FollowState(3);
    expect([follow.status, follow.lastSeq, follow.caughtUp, follow.appended]).toEqual([
      'connecting',
      0,
      false,
      0,
    ]);
    follow.received([1, 2]);
    expect([follow.lastSeq, follow.caughtUp, follow.appended]).toEqual([2, false, 0]);
    follow.received([3, 4, 5]);
    expect([follow.lastSeq, follow.caughtUp, follow.appended]).toEqual([5, true, 2]);
    expect([follow.isNew(3), follow.isNew(4)]).toEqual([false, true]);
  });

  it('is caught up at once for a trace that held nothing yet, and resumes after a given seq', () => {
    expect(new FollowState(0).caughtUp).toBe(true);
    const resumed = new FollowState(10, 7);
    expect([resumed.lastSeq, resumed.caughtUp]).toEqual([7, false]);
    // A line the page had already (a reconnect racing an append) does not move the resume point back.
    resumed.received([6]);
    expect(resumed.lastSeq).toBe(7);
  });

  it('keeps the connection’s status, its reason, and how many connections it took', () => {
    const follow = new FollowState(0);
    follow.moved('live', undefined, 1);
    follow.moved('reconnecting', 'collector restarting', 1);
    expect([follow.status, follow.detail, follow.connections]).toEqual([
      'reconnecting',
      'collector restarting',
      1,
    ]);
    follow.moved('live', undefined, 2);
    expect([follow.status, follow.detail, follow.connections]).toEqual(['live', undefined, 2]);
    follow.dropped += 4;
    expect(follow.dropped).toBe(4);
  });
});
