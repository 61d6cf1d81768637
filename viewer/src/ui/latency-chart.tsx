import { formatLatency } from '../data/summary.js';

export interface LatencySeries {
  label: string;
  /** Every latency of the series, in ms (any order). */
  values: readonly number[];
  p50: number | undefined;
  p95: number | undefined;
  errors?: readonly number[];
}

const WIDTH = 720;
const ROW = 24;
const LEFT = 170;
const RIGHT = 16;
const TOP = 22;
/** Dots drawn per series at most; beyond that a sample (evenly spaced through the sorted values). */
const MAX_DOTS = 400;

/**
 * A strip chart of latencies: one line per tool or method, one dot per call on a log time axis, with p50 and
 * p95 marks. Plain SVG: no chart library, scales with the page, readable in both themes (it uses currentColor).
 */
export function LatencyChart({ series, title }: { series: readonly LatencySeries[]; title: string }) {
  const all = series.flatMap((s) => s.values);
  if (all.length === 0) return <p class="empty">No latencies to chart.</p>;
  const max = Math.max(1, ...all);
  const lo = 0;
  const hi = Math.log10(1 + max);
  const x = (ms: number) =>
    LEFT + ((Math.log10(1 + Math.max(0, ms)) - lo) / (hi - lo || 1)) * (WIDTH - LEFT - RIGHT);
  const height = TOP + series.length * ROW + 8;
  const ticks = axisTicks(max);
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${WIDTH} ${height}`}
      role="img"
      aria-label={title}
      preserveAspectRatio="xMinYMin meet"
    >
      <title>{title}</title>
      {ticks.map((t) => (
        <g key={t}>
          <line x1={x(t)} x2={x(t)} y1={TOP - 4} y2={height - 8} class="grid" />
          <text x={x(t)} y={TOP - 8} class="tick" text-anchor="middle">
            {formatLatency(t)}
          </text>
        </g>
      ))}
      {series.map((s, i) => {
        const y = TOP + i * ROW + ROW / 2;
        const dots = sample(s.values);
        return (
          <g key={s.label} class="series">
            <text x={LEFT - 8} y={y + 4} text-anchor="end" class="label">
              {s.label.length > 24 ? `${s.label.slice(0, 23)}…` : s.label}
            </text>
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={y} y2={y} class="track" />
            {dots.map((v, j) => (
              <circle key={j} cx={x(v)} cy={y} r={3} class="dot" />
            ))}
            {(s.errors ?? []).map((v, j) => (
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
  );
}

/** 0, 1, 10, 100 … ms up to the maximum. */
function axisTicks(max: number): number[] {
  const ticks = [0];
  for (let t = 1; t <= max * 1.0001; t *= 10) ticks.push(t);
  return ticks;
}

function sample(values: readonly number[]): readonly number[] {
  if (values.length <= MAX_DOTS) return values;
  const sorted = [...values].sort((a, b) => a - b);
  const step = sorted.length / MAX_DOTS;
  return Array.from({ length: MAX_DOTS }, (_, i) => sorted[Math.floor(i * step)]!);
}
