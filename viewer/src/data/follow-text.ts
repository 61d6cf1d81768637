import type { FollowView } from './follow.js';

/**
 * A followed trace's state in words, for the bar above its list: whether the page is still reading what was
 * recorded before it opened the trace (the snapshot), following new lines, resuming after a dropped connection, or
 * stopped — so a quiet list never looks live when it is not.
 */

export type FollowPhase = 'connecting' | 'snapshot' | 'live' | 'reconnecting' | 'ended' | 'closed' | 'gone';

export interface FollowText {
  phase: FollowPhase;
  text: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * @example followText({ status: 'live', caughtUp: false, lastSeq: 40, snapshotSeq: 120, … })
 * // → { phase: 'snapshot', text: 'reading the snapshot: line 40 of 120' }
 */
export function followText(view: FollowView): FollowText {
  switch (view.status) {
    case 'connecting':
      return { phase: 'connecting', text: 'connecting…' };
    case 'reconnecting':
      return {
        phase: 'reconnecting',
        text: `connection lost${view.detail ? ` (${view.detail})` : ''}: reconnecting, will resume after line ${view.lastSeq}`,
      };
    case 'ended':
      return {
        phase: 'ended',
        text: `recording ended · ${plural(view.appended, 'line')} arrived while open`,
      };
    case 'closed':
      return { phase: 'closed', text: 'stopped following' };
    case 'gone':
      return { phase: 'gone', text: `can no longer follow${view.detail ? `: ${view.detail}` : ''}` };
    case 'live': {
      if (!view.caughtUp)
        return {
          phase: 'snapshot',
          text: `reading the snapshot: line ${view.lastSeq} of ${view.snapshotSeq}`,
        };
      const parts = [`live · ${plural(view.appended, 'new line')} since opened`];
      if (view.resumedAfter !== undefined) parts.push(`resumed after line ${view.resumedAfter}`);
      if (view.dropped > 0) parts.push(`${plural(view.dropped, 'line')} dropped (reload to fetch them)`);
      return { phase: 'live', text: parts.join(' · ') };
    }
  }
}
