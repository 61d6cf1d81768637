import { describe, expect, it } from 'vitest';
import { FollowState } from '../../../viewer/src/data/follow.js';
import { followText } from '../../../viewer/src/data/follow-text.js';

describe('a followed trace’s state in words', () => {
  it('says the snapshot is being read, then live with the lines that arrived since', () => {
    const follow = new FollowState(120);
    expect(followText(follow)).toEqual({ phase: 'connecting', text: 'connecting…' });
    follow.moved('live', undefined, 1);
    follow.received([1, 2, 40]);
    expect(followText(follow)).toEqual({ phase: 'snapshot', text: 'reading the snapshot: line 40 of 120' });
    follow.received([120, 121, 122]);
    expect(followText(follow)).toEqual({ phase: 'live', text: 'live · 2 new lines since opened' });
  });

  it('names where a reconnect resumes, before and after it does', () => {
    const follow = new FollowState(3);
    follow.moved('live', undefined, 1);
    follow.received([1, 2, 3, 4]);
    follow.moved('reconnecting', 'collector restarting', 1);
    expect(followText(follow)).toEqual({
      phase: 'reconnecting',
      text: 'connection lost (collector restarting): reconnecting, will resume after line 4',
    });
    follow.moved('live', undefined, 2);
    follow.received([5]);
    follow.dropped = 1;
    expect(followText(follow)).toEqual({
      phase: 'live',
      text: 'live · 2 new lines since opened · resumed after line 4 · 1 line dropped (reload to fetch them)',
    });
    expect(follow.resumedAfter).toBe(4);
  });

  it('says when following stopped, and why', () => {
    const follow = new FollowState(0);
    follow.moved('ended', undefined, 1);
    expect(followText(follow).text).toBe('recording ended · 0 lines arrived while open');
    follow.moved('gone', 'the share link expired', 1);
    expect(followText(follow)).toEqual({
      phase: 'gone',
      text: 'can no longer follow: the share link expired',
    });
  });
});
