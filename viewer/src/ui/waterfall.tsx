import { useCallback, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { formatLatency } from '../data/summary.js';
import { axisTicks, formatSpan, parseSpan, tickLabel, zoom } from '../data/time-axis.js';
import {
  type BarList,
  type BarSource,
  barBox,
  fitRange,
  fits,
  type TimeRange,
  thinMarks,
} from '../data/waterfall.js';
import { Brush } from './brush.js';
import { ProgressBar } from './progress-bar.js';
import { keyStep, VirtualList } from './virtual-list.js';
import './waterfall.css';

export interface WaterfallProps {
  bars: BarSource;
  /** The trace's zero: axis labels are offsets from it. */
  zero: number;
  /** Changes whenever the bars may have (a trace still loading, a page fetched). */
  version: number;
  /**
   * The axis as the URL keeps it: a zoomed range (`span=<from>-<to>`, ms from zero), `fit` (the rows in view),
   * `all` (the whole trace), or undefined: the whole trace, unless the rows in view would be slivers on it.
   */
  span: string | undefined;
  setSpan: (span: string | undefined) => void;
  selected: string | undefined;
  select: (key: string | undefined) => void;
}

export const WATERFALL_ROW_HEIGHT = 24;
const OVERVIEW_BUCKETS = 240;
/** Marks drawn per bar at most (a call with thousands of progress notifications). */
const MAX_MARKS = 60;

const ARROW = { in: '→', out: '←' } as const;

/**
 * The waterfall: a row per request, its bar placed on one time axis from send to answer (an open request runs to
 * the end of what the trace holds), server→client requests nested under the call they serve, the notifications
 * that belong to a request as marks in its row, progress as a fill along the bar. Above it an overview of the
 * whole trace (requests in flight over time); drag there or on the axis to zoom, the zoom kept in the link.
 * The axis fits the rows in view (zoomed to them as they scroll by) when asked to, and on its own when the whole
 * trace's axis would draw them as slivers (minutes of calls in a five-hour trace).
 * Rows are virtualized like the timeline's, so tens of thousands of requests scroll smoothly.
 */
export function WaterfallView({ bars, zero, version, span, setSpan, selected, select }: WaterfallProps) {
  const whole: TimeRange = { from: bars.start, to: Math.max(bars.end, bars.start + 1) };
  const asked = span === 'fit' ? 'fit' : span === 'all' ? 'whole' : undefined;
  const zoomedTo = asked ? undefined : parseSpan(span, zero, whole.to);
  const listed = zoomedTo ?? whole;
  const shown = useMemo(() => bars.inRange(listed), [bars, version, listed.from, listed.to]);
  const [seen, setSeen] = useState<[number, number]>([0, 0]);
  const onWindow = useCallback((first: number, end: number) => setSeen([first, end]), []);
  const fitted = useMemo(
    () => (zoomedTo ? undefined : fitRange(barsAt(shown, seen[0], seen[1]))),
    [shown, version, seen[0], seen[1], zoomedTo === undefined],
  );
  const fitting = fits(asked, fitted, whole);
  const range = zoomedTo ?? (fitting ? fitted! : whole);
  const zoomed = range.from > whole.from || range.to < whole.to;
  const counts = useMemo(() => bars.density(OVERVIEW_BUCKETS), [bars, version]);
  const root = useRef<HTMLDivElement>(null);
  const width = useWidth(root);
  // A tick label needs about 60 px: a phone gets three or four, a wide screen ten.
  const { step, ticks } = axisTicks(range, zero, Math.max(2, Math.min(10, Math.floor((width * 0.6) / 60))));
  const spanMs = Math.max(1, range.to - range.from);
  const place = (t: number) => `${((zero + t - range.from) / spanMs) * 100}%`;
  /** A range picked (a zoom, a drag): undefined or the whole trace is the whole trace, kept as such. */
  const pick = (next: TimeRange | undefined) => {
    const all = next === undefined || (next.from <= whole.from && next.to >= whole.to);
    if (!all) return setSpan(formatSpan(next, zero));
    // Left to itself the view would fit the rows in view: the whole trace has to be asked for.
    setSpan(fits(undefined, fitted, whole) ? 'all' : undefined);
  };

  const selectedIndex = selected === undefined ? -1 : shown.indexOf(selected);
  const center = () => {
    const bar = selectedIndex >= 0 ? shown.at(selectedIndex) : undefined;
    return bar && bar.start >= range.from && bar.start <= range.to ? bar.start : (range.from + range.to) / 2;
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') return select(undefined);
    const next = keyStep(event, selectedIndex, shown.count, 20);
    const bar = next === undefined ? undefined : shown.at(next);
    if (bar) select(bar.key);
  };

  const render = (i: number) => {
    const bar = shown.at(i);
    if (!bar) return <div key={`pending-${i}`} class="row wf-row pending" />;
    const box = barBox(bar, range, bars.end);
    const classes = ['row', 'wf-row', `d-${bar.dir}`];
    if (bar.outcome === 'error' || bar.outcome === 'tool_error') classes.push('err');
    if (bar.key === selected) classes.push('sel');
    const took =
      bar.latency !== undefined ? formatLatency(bar.latency) : bar.cancelled ? 'cancelled' : bar.outcome;
    return (
      // biome-ignore lint/a11y/useKeyWithClickEvents: the listbox around the rows handles the keys
      <div
        key={bar.key}
        class={classes.join(' ')}
        role="option"
        tabIndex={-1}
        data-key={bar.key}
        data-outcome={bar.outcome}
        aria-selected={bar.key === selected}
        onClick={() => select(bar.key)}
      >
        <span class="wf-name" style={{ paddingLeft: `${4 + bar.depth * 14}px` }} title={bar.label}>
          <span class="c-dir">{ARROW[bar.dir]}</span> {bar.label}
        </span>
        <span class="wf-took">{took}</span>
        <span class="wf-track">
          {ticks.map((t) => (
            <span key={t} class="wf-grid" style={{ left: place(t) }} />
          ))}
          {box ? (
            <span
              class={`wf-bar${bar.guess ? ' guess' : ''}${box.after && bar.end === undefined ? ' open' : ''}`}
              style={{ left: `${box.left * 100}%`, width: `${box.width * 100}%` }}
              title={`${bar.label} · ${took}${bar.guess ? ' · tied to its parent by a guess' : ''}`}
            >
              {bar.progress?.fraction !== undefined ? (
                <span class="wf-progress" style={{ width: `${bar.progress.fraction * 100}%` }} />
              ) : null}
            </span>
          ) : null}
          {thinMarks(bar.marks, MAX_MARKS).map((mark, j) =>
            mark.time >= range.from && mark.time <= range.to ? (
              <span
                key={j}
                class={`wf-mark m-${mark.kind}${mark.guess ? ' guess' : ''}`}
                style={{ left: `${((mark.time - range.from) / spanMs) * 100}%` }}
              />
            ) : null,
          )}
        </span>
      </div>
    );
  };

  const max = Math.max(1, ...counts);
  const selectedBar = selectedIndex >= 0 ? shown.at(selectedIndex) : undefined;
  return (
    <div class="waterfall" ref={root}>
      <div class="wf-tools">
        <button
          type="button"
          class="button"
          onClick={() => pick(zoom(range, center(), 0.5, whole.from, whole.to))}
        >
          Zoom in
        </button>
        <button
          type="button"
          class="button"
          onClick={() => pick(zoom(range, center(), 2, whole.from, whole.to))}
        >
          Zoom out
        </button>
        <button
          type="button"
          class="button"
          aria-pressed={fitting}
          disabled={fitting || fitted === undefined}
          onClick={() => setSpan('fit')}
          title="Fit the time axis to the rows in view, following them as they scroll"
        >
          Fit rows
        </button>
        <button type="button" class="button" disabled={!zoomed} onClick={() => pick(undefined)}>
          Whole trace
        </button>
        <span
          class="muted wf-summary"
          data-shown={shown.count}
          data-axis={fitting ? 'fit' : zoomedTo ? 'zoomed' : 'whole'}
        >
          {shown.count} {shown.count === 1 ? 'request' : 'requests'}
          {zoomedTo
            ? ` in ${tickLabel(range.from - zero, step)} – ${tickLabel(range.to - zero, step)}`
            : ` over ${formatLatency(whole.to - whole.from)}`}
          {fitting
            ? ` · axis fitted to the rows in view: ${tickLabel(range.from - zero, step)} – ${tickLabel(range.to - zero, step)}`
            : ''}
          {bars.untimed > 0 ? ` · ${bars.untimed} without a time left out` : ''}
        </span>
        {selectedBar?.progress ? <ProgressBar progress={selectedBar.progress} /> : null}
      </div>
      <Brush class="wf-overview" label="overview" range={whole} onPick={pick} onReset={() => pick(undefined)}>
        <svg viewBox={`0 0 ${counts.length} 100`} preserveAspectRatio="none" aria-hidden="true">
          {counts.map((n, i) =>
            n > 0 ? (
              <rect key={i} x={i} width={1} y={100 - (n / max) * 100} height={(n / max) * 100} />
            ) : null,
          )}
        </svg>
        {zoomed ? (
          <span
            class="wf-window"
            style={{
              left: `${((range.from - whole.from) / (whole.to - whole.from)) * 100}%`,
              width: `${(spanMs / (whole.to - whole.from)) * 100}%`,
            }}
          />
        ) : null}
      </Brush>
      <div class="row wf-head">
        <span class="wf-name">Request</span>
        <span class="wf-took">Took</span>
        <Brush class="wf-axis" label="time axis" range={range} onPick={pick} onReset={() => pick(undefined)}>
          {ticks.map((t) =>
            // A label at the right edge would be cut off: its grid line is enough.
            (zero + t - range.from) / spanMs < 0.95 ? (
              <span key={t} class="wf-tick" style={{ left: place(t) }}>
                {tickLabel(t, step)}
              </span>
            ) : null,
          )}
        </Brush>
      </div>
      {shown.count === 0 ? (
        <p class="empty">
          {shown.loading
            ? 'Loading…'
            : `No requests ${zoomedTo ? 'in this stretch of time' : 'in the rows shown'}.`}
        </p>
      ) : (
        <VirtualList
          class="wf-list"
          label="waterfall"
          count={shown.count}
          rowHeight={WATERFALL_ROW_HEIGHT}
          render={render}
          scrollToIndex={selectedIndex}
          onKeyDown={onKeyDown}
          onWindow={onWindow}
        />
      )}
    </div>
  );
}

/** The bars of places [first, end) of a list, those at hand. */
function* barsAt(list: BarList, first: number, end: number) {
  for (let i = first; i < end; i++) yield list.at(i);
}

/** An element's width in pixels, kept up to date as it is resized. */
function useWidth(ref: { current: HTMLElement | null }): number {
  const [width, setWidth] = useState(800);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setWidth(el.clientWidth || 800);
    const observer = new ResizeObserver(() => setWidth(el.clientWidth || 800));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return width;
}
