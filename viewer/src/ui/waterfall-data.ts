import { useMemo } from 'preact/hooks';
import type { TraceModel } from '../data/model.js';
import type { Row } from '../data/rows.js';
import { type BarSource, memoryBars, waterfallOf } from '../data/waterfall.js';

/**
 * The waterfall's bars for the rows shown, built only while the waterfall is the view (other views do not pay for
 * them), and again as the model changes (a trace still loading, a live one growing).
 *
 * @example const bars = useWaterfall(model, rows, version, route.view === 'waterfall');
 */
export function useWaterfall(
  model: TraceModel | undefined,
  rows: readonly Row[],
  version: number,
  active: boolean,
): BarSource | undefined {
  return useMemo(
    () => (active && model ? memoryBars(waterfallOf(rows, model.start())) : undefined),
    [model, rows, version, active],
  );
}
