/**
 * Buttons to step from one failed row to the next (the keys `e` and `Shift+E` do the same), with where the
 * selection stands among them: "error 2 of 5".
 */
export interface ErrorStepsProps {
  /** Failed rows in the list shown. */
  count: number;
  /** 1-based place of the selected row among them, when it is one. */
  at: number | undefined;
  step: (direction: 1 | -1) => void;
}

export function ErrorSteps({ count, at, step }: ErrorStepsProps) {
  if (count === 0)
    return (
      <span class="error-steps muted" data-errors={0}>
        no errors
      </span>
    );
  return (
    <span class="error-steps" data-errors={count}>
      <button
        type="button"
        class="step"
        onClick={() => step(-1)}
        aria-label="previous error (Shift+E)"
        title="Previous error (Shift+E)"
      >
        ‹
      </button>
      <span class="err">
        {at === undefined ? `${count} ${count === 1 ? 'error' : 'errors'}` : `error ${at} of ${count}`}
      </span>
      <button
        type="button"
        class="step"
        onClick={() => step(1)}
        aria-label="next error (E)"
        title="Next error (E)"
      >
        ›
      </button>
    </span>
  );
}
