/**
 * Where a list of a followed trace stays as rows arrive, as a small state machine the views drive: a list scrolled
 * to its last row keeps showing the last row (it follows); a list the user scrolled up, or paused, stays where it is
 * and counts the rows that arrived below the fold ("12 new ↓"). Pure, so the rules are tested without a browser.
 */

export interface FollowScroll {
  /** `follow`: keep the newest row in view whenever the list is at its end; `paused`: never move on its own. */
  mode: 'follow' | 'paused';
  /** The list's last row is in view (as the last scroll left it). */
  atBottom: boolean;
  /** How many rows the user has seen: rows past this arrived while they looked elsewhere. */
  seen: number;
}

/**
 * The state a list starts in: following, at its end, every row seen.
 *
 * @example startFollow(120) // → { mode: 'follow', atBottom: true, seen: 120 }
 */
export function startFollow(count: number): FollowScroll {
  return { mode: 'follow', atBottom: true, seen: count };
}

/** The list holds `count` rows now (new rows arrived, or a filter changed how many it shows). */
export function counted(state: FollowScroll, count: number): FollowScroll {
  if (pinned(state) || count < state.seen) return state.seen === count ? state : { ...state, seen: count };
  return state;
}

/** The user scrolled: the end of the list is in view, or not. */
export function scrolled(state: FollowScroll, atBottom: boolean, count: number): FollowScroll {
  const next = { ...state, atBottom };
  if (atBottom && state.mode === 'follow') next.seen = count;
  return next;
}

/**
 * The follow / pause switch. Following again also jumps to the newest row, so the caller scrolls to the end.
 *
 * @example toggled({ mode: 'follow', atBottom: true, seen: 5 }, 9) // → { mode: 'paused', atBottom: true, seen: 5 }
 */
export function toggled(state: FollowScroll, count: number): FollowScroll {
  return state.mode === 'follow' ? { ...state, mode: 'paused' } : jumped(state, count);
}

/** The user asked for the newest rows ("N new ↓"): follow again from the end. */
export function jumped(_state: FollowScroll, count: number): FollowScroll {
  return { mode: 'follow', atBottom: true, seen: count };
}

/** The list keeps its last row in view as rows arrive. */
export function pinned(state: FollowScroll): boolean {
  return state.mode === 'follow' && state.atBottom;
}

/**
 * Rows that arrived out of view: what the "N new ↓" marker counts.
 *
 * @example unseen({ mode: 'paused', atBottom: true, seen: 5 }, 9) // → 4
 */
export function unseen(state: FollowScroll, count: number): number {
  return pinned(state) ? 0 : Math.max(0, count - state.seen);
}
