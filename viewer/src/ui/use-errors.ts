import { type LineQuery, queryKey } from 'mcp-tapedeck/trace';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { errorPosition, nextError } from '../data/error-nav.js';
import type { PagedApi } from '../data/paged-api.js';
import type { Row } from '../data/rows.js';
import type { TraceView } from '../data/trace-view.js';

/** While a paged trace is indexed, its failures are counted again each time it grew by this many rows. */
const RECOUNT_ROWS = 100_000;

/** The footer's error counter and the `E` key: how many calls failed in the list, and a step to the next. */
export interface ErrorSteps {
  /** Failing calls in the list and where the selection stands among them; undefined where the view has no list. */
  errors: { count: number; at: number | undefined } | undefined;
  step: ((direction: 1 | -1) => void) | undefined;
}

/**
 * Failures counted and stepped through per failing call, in both kinds of trace: a trace read whole counts its
 * list in the browser (data/error-nav.ts); a paged trace asks the server, which counts the same way over the
 * rows it holds (`api/paged/errors`), again as the index grows.
 *
 * @example const { errors, step } = useErrorSteps({ trace, paged, list, query, selected, shown: true, select, version });
 */
export function useErrorSteps(args: {
  trace: TraceView | undefined;
  paged: PagedApi | undefined;
  /** The list shown, when the browser holds it. */
  list: readonly Row[];
  query: LineQuery;
  selected: string | undefined;
  /** A list is on screen (the timeline, the Calls view). */
  shown: boolean;
  select: (key: string) => void;
  version: number;
}): ErrorSteps {
  const { trace, paged, list, query, selected, shown, select, version } = args;
  const whole = trace?.whole === true;
  const selectedIndex = selected === undefined ? -1 : list.findIndex((r) => r.key === selected);
  // Counted once per change of the list, not on every render (a 100k-row list is read while it loads).
  const held = useMemo(
    () => (shown && whole ? errorPosition(list, selectedIndex) : undefined),
    [list, version, selectedIndex, shown, whole],
  );
  const served = useServedErrors(shown && trace?.whole === false ? paged : undefined, trace, query, selected);
  if (!shown || !trace) return { errors: undefined, step: undefined };
  if (whole)
    return {
      errors: held,
      step: (direction) => {
        const at = nextError(list, selectedIndex, direction);
        if (at !== undefined) select(list[at]!.key);
      },
    };
  if (!paged) return { errors: undefined, step: undefined };
  return {
    errors: served,
    step: (direction) => {
      void paged.errors(query, selected, direction).then(
        (answer) => {
          if (answer.target) select(answer.target.key);
        },
        () => {},
      );
    },
  };
}

/** A paged trace's count and the selection's place among its failures, asked again as the index grows. */
function useServedErrors(
  paged: PagedApi | undefined,
  trace: TraceView | undefined,
  query: LineQuery,
  selected: string | undefined,
): { count: number; at: number | undefined } | undefined {
  const [answer, setAnswer] = useState<{ count: number; at: number | undefined } | undefined>();
  const key = queryKey(query);
  // While the trace is indexed, asked again every so many rows (each ask reads every row the server holds).
  const indexed = trace?.whole === false ? Math.ceil(trace.total() / RECOUNT_ROWS) : 0;
  const done = trace?.model.loading === undefined;
  useEffect(() => {
    if (!paged || (indexed === 0 && !done)) return;
    let live = true;
    paged.errors(query, selected, 0).then(
      (next) => live && setAnswer({ count: next.count, at: next.at ?? undefined }),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [paged, key, selected, indexed, done]);
  return paged ? answer : undefined;
}
