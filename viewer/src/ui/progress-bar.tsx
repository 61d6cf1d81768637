import { type ProgressState, progressText } from '../data/progress.js';
import './actions.css';

/**
 * How far a call got, from its progress notifications: a bar filled to progress / total (a moving stripe when
 * the server gave no total), and the words beside it (`3 / 5 · 60 % · Step 3`).
 */
export function ProgressBar({ progress }: { progress: ProgressState }) {
  const text = progressText(progress);
  return (
    <span
      class="progress"
      data-fraction={progress.fraction ?? ''}
      title={`${progress.count} progress notifications`}
    >
      <span
        class={`progress-track${progress.fraction === undefined ? ' unknown' : ''}`}
        role="progressbar"
        aria-label="progress"
        aria-valuemin={0}
        aria-valuemax={progress.total ?? undefined}
        aria-valuenow={progress.fraction === undefined ? undefined : progress.progress}
        aria-valuetext={text}
      >
        <span class="progress-fill" style={{ width: `${(progress.fraction ?? 1) * 100}%` }} />
      </span>
      <span class="progress-text">{text}</span>
    </span>
  );
}
