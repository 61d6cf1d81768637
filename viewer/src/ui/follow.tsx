import { useEffect, useState } from 'preact/hooks';
import type { FollowView } from '../data/follow.js';
import {
  counted,
  type FollowScroll,
  jumped,
  pinned,
  scrolled,
  startFollow,
  toggled,
  unseen,
} from '../data/follow-scroll.js';
import { followText } from '../data/follow-text.js';
import { FollowMark } from './icons.js';

/** What a list needs to follow a trace as it is recorded, and what the bar and marker show. */
export interface Following {
  /** A trace is being followed (else the list behaves as any list). */
  active: boolean;
  paused: boolean;
  /** Keep the last row in view. */
  pinned: boolean;
  /** Rows that arrived out of view. */
  unseen: number;
  onAtBottom: (atBottom: boolean) => void;
  /** Follow / pause. */
  toggle: () => void;
  /** Show the newest rows and follow them. */
  jump: () => void;
}

/**
 * The follow state of the list showing `count` rows of a followed trace (follow-scroll.ts holds the rules). Off
 * when nothing is followed: a trace read from a file never scrolls on its own.
 */
export function useFollowing(active: boolean, count: number): Following {
  const [state, setState] = useState<FollowScroll>(() => startFollow(count));
  // Only a followed list keeps count: a file being read must not re-render the page for nothing.
  useEffect(() => {
    if (active) setState((s) => counted(s, count));
  }, [count, active]);
  return {
    active,
    paused: state.mode === 'paused',
    pinned: active && pinned(state),
    unseen: active ? unseen(state, count) : 0,
    onAtBottom: (atBottom) => setState((s) => scrolled(s, atBottom, count)),
    toggle: () => setState((s) => toggled(s, count)),
    jump: () => setState((s) => jumped(s, count)),
  };
}

/** "12 new ↓": rows arrived below what the list shows; a click shows them and follows again. */
export function NewRowsMarker({ following }: { following: Following }) {
  if (!following.active || following.unseen === 0) return null;
  return (
    <button type="button" class="new-rows" onClick={following.jump} data-unseen={following.unseen}>
      {following.unseen} new ↓
    </button>
  );
}

/**
 * The bar over a followed trace: where the connection stands (the snapshot still being read, live, resuming after
 * a dropped connection, ended) and the follow / pause switch.
 */
export function LiveBar({ view, following }: { view: FollowView; following: Following }) {
  const { phase, text } = followText(view);
  const open = phase === 'live' || phase === 'snapshot' || phase === 'connecting' || phase === 'reconnecting';
  return (
    <div class={`live-bar phase-${phase}`} data-phase={phase} role="status">
      <span class="live-dot" aria-hidden="true" />
      <span class="live-text">{text}</span>
      {open ? (
        <button
          type="button"
          class="follow-toggle"
          aria-pressed={!following.paused}
          onClick={following.toggle}
          title={following.paused ? 'Follow: keep the newest rows in view' : 'Pause: stay where you are'}
        >
          <FollowMark paused={following.paused} /> {following.paused ? 'Follow' : 'Pause'}
        </button>
      ) : null}
    </div>
  );
}
