import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { sampleLatencies } from '../data/latency-sample.js';
import { formatLatency } from '../data/summary.js';

export interface LatencySeries {
  label: string;
  /** Every latency of the series, in ms, ascending. */
  values: readonly number[];
  p50: number | undefined;
  p95: number | undefined;
  errors?: readonly number[];
}

const ROW = 24;
const RIGHT = 16;
const TOP = 22;
/** The chart is drawn as wide as its box (at least this), so its text keeps its size on a phone. */
const MIN_WIDTH = 320;
const MAX_WIDTH = 900;
/** Dots drawn per series at most; beyond that the fastest, the slowest, the outliers and a sample of the rest. */
const MAX_DOTS = 400;

/**
 * A strip chart of latencies: one line per tool or method, one dot per call on a log time axis (the slowest calls
 * always among them), with p50 and p95 marks and a legend that says which is which. Plain SVG: no chart library,
 * readable in both themes (it uses the page's colours).
 */
export function LatencyChart({ series, title }: { series: readonly LatencySeries[]; title: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(720);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setWidth(Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, el.clientWidth || 720)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  let max = 1;
  for (const s of series) max = Math.max(max, s.values[s.values.length - 1] ?? 0);
  if (series.every((s) => s.values.length === 0)) return <p class="empty">No latencies to chart.</p>;
  // The label column: a third of a narrow chart, up to 170 px.
  const left = Math.min(170, Math.round(width * 0.34));
  const hi = Math.log10(1 + max);
  const x = (ms: number) => left + (Math.log10(1 + Math.max(0, ms)) / (hi || 1)) * (width - left - RIGHT);
  const height = TOP + series.length * ROW + 8;
  const chars = Math.floor((left - 8) / 6.5);
  return (
    <figure class="chart-box" ref={box}>
      <svg
        class="chart"
        viewBox={`0 0 ${width} ${height}`}
        width={width}
        height={height}
        role="img"
        aria-label={title}
      >
        <title>{title}</title>
        {axisTicks(max).map((t) => (
          <g key={t}>
            <line x1={x(t)} x2={x(t)} y1={TOP - 4} y2={height - 8} class="grid" />
            <text x={x(t)} y={TOP - 8} class="tick" text-anchor="middle">
              {formatLatency(t)}
            </text>
          </g>
        ))}
        {series.map((s, i) => {
          const y = TOP + i * ROW + ROW / 2;
          const dots = sampleLatencies(s.values, MAX_DOTS);
          const errors = sampleLatencies(
            [...(s.errors ?? [])].sort((a, b) => a - b),
            MAX_DOTS,
          );
          return (
            <g key={s.label} class="series" data-series={s.label} data-dots={dots.length}>
              <text x={left - 8} y={y + 4} text-anchor="end" class="label">
                {s.label.length > chars ? `${s.label.slice(0, chars - 1)}…` : s.label}
                <title>{s.label}</title>
              </text>
              <line x1={left} x2={width - RIGHT} y1={y} y2={y} class="track" />
              {dots.map((v, j) => (
                <circle key={j} cx={x(v)} cy={y} r={3} class="dot" data-ms={v} />
              ))}
              {errors.map((v, j) => (
                <circle key={`e${j}`} cx={x(v)} cy={y} r={3.5} class="dot err" />
              ))}
              {s.p50 !== undefined ? (
                <line x1={x(s.p50)} x2={x(s.p50)} y1={y - 8} y2={y + 8} class="p50">
                  <title>p50 {formatLatency(s.p50)}</title>
                </line>
              ) : null}
              {s.p95 !== undefined ? (
                <line x1={x(s.p95)} x2={x(s.p95)} y1={y - 8} y2={y + 8} class="p95">
                  <title>p95 {formatLatency(s.p95)}</title>
                </line>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption class="legend">
        <span>
          <svg width="10" height="10" aria-hidden="true">
            <circle cx="5" cy="5" r="3" class="dot" />
          </svg>{' '}
          a call
        </span>
        <span>
          <svg width="10" height="10" aria-hidden="true">
            <circle cx="5" cy="5" r="3.5" class="dot err" />
          </svg>{' '}
          a failed call
        </span>
        <span>
          <svg width="6" height="14" aria-hidden="true">
            <line x1="3" x2="3" y1="0" y2="14" class="p50" />
          </svg>{' '}
          p50 (median)
        </span>
        <span>
          <svg width="6" height="14" aria-hidden="true">
            <line x1="3" x2="3" y1="0" y2="14" class="p95" />
          </svg>{' '}
          p95
        </span>
        <span class="muted">log scale; the slowest calls always drawn</span>
      </figcaption>
    </figure>
  );
}

/** 0, 1, 10, 100 … ms up to the maximum. */
function axisTicks(max: number): number[] {
  const ticks = [0];
  for (let t = 1; t <= max * 1.0001; t *= 10) ticks.push(t);
  return ticks;
}
