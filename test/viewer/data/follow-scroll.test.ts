import { describe, expect, it } from 'vitest';
import {
  counted,
  jumped,
  pinned,
  scrolled,
  startFollow,
  toggled,
  unseen,
} from '../../../viewer/src/data/follow-scroll.js';

describe('a followed list as rows arrive', () => {
  it('stays at the end while the user is there, counting nothing as unseen', () => {
    let state = startFollow(10);
    state = counted(state, 14);
    expect(pinned(state)).toBe(true);
    expect(unseen(state, 14)).toBe(0);
    expect(state.seen).toBe(14);
  });

  it('stays put once the user scrolls up, and counts the rows that arrive below the fold', () => {
    let state = scrolled(startFollow(10), false, 10);
    expect(pinned(state)).toBe(false);
    state = counted(state, 13);
    expect(unseen(state, 13)).toBe(3);
    // Back at the end: following again, nothing unseen.
    state = scrolled(state, true, 13);
    expect([pinned(state), unseen(state, 13)]).toEqual([true, 0]);
  });

  it('never moves while paused, even at the end, and the marker jumps back to following', () => {
    let state = toggled(startFollow(5), 5);
    expect(state.mode).toBe('paused');
    state = counted(state, 9);
    expect([pinned(state), unseen(state, 9)]).toEqual([false, 4]);
    state = scrolled(state, true, 9);
    expect(unseen(state, 9)).toBe(4);
    state = jumped(state, 9);
    expect([state.mode, pinned(state), unseen(state, 9)]).toEqual(['follow', true, 0]);
    // The switch itself, from paused, follows from the end again.
    expect(pinned(toggled(toggled(state, 9), 12))).toBe(true);
  });

  it('counts from what is shown when a filter leaves fewer rows', () => {
    let state = scrolled(startFollow(100), false, 100);
    state = counted(state, 10);
    expect(unseen(state, 10)).toBe(0);
    expect(unseen(counted(state, 12), 12)).toBe(2);
  });
});
