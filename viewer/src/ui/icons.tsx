import type { DiffStatus } from '../data/diff-status.js';

/**
 * The viewer's status marks, drawn as inline SVG in the text's colour: a page without an emoji or symbol font
 * shows them all the same, at the same size on every system.
 */

/** The path of each diff status's mark, on a 12×12 grid. */
const STATUS_PATHS: Record<DiffStatus, string> = {
  same: 'M2 4.5h8M2 7.5h8',
  changed: 'M1.5 7.5c1.5-3 3-3 4.5-1.5s3 1.5 4.5-1.5',
  added: 'M6 2v8M2 6h8',
  removed: 'M2 6h8',
  fixed: 'M2 6.5l2.5 2.5L10 3',
  broke: 'M3 3l6 6M9 3l-6 6',
};

/**
 * A diff row's status as a mark: `=`, `~`, `+`, `−`, a tick for a call fixed, a cross for one broken.
 *
 * @example <StatusMark status="fixed" />
 */
export function StatusMark({ status }: { status: DiffStatus }) {
  return (
    <svg
      class="mark-icon status-mark"
      viewBox="0 0 12 12"
      width="12"
      height="12"
      role="img"
      aria-label={status}
    >
      <path
        d={STATUS_PATHS[status]}
        fill="none"
        stroke="currentColor"
        stroke-width="1.6"
        stroke-linecap="round"
        stroke-linejoin="round"
      />
    </svg>
  );
}

/** Follow (a play triangle) or Pause (two bars), for the live bar's toggle. */
export function FollowMark({ paused }: { paused: boolean }) {
  return (
    <svg class="mark-icon" viewBox="0 0 10 10" width="9" height="9" aria-hidden="true">
      {paused ? (
        <path d="M2 1l7 4-7 4z" fill="currentColor" />
      ) : (
        <path d="M2 1h2v8H2zM6 1h2v8H6z" fill="currentColor" />
      )}
    </svg>
  );
}
