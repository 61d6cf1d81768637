import { useMemo } from 'preact/hooks';
import { formatOffset, idTag } from 'tapedeck/trace';
import { faultMarks } from '../data/faults.js';
import type { TraceModel } from '../data/model.js';
import { isErrorRow, type Row } from '../data/rows.js';
import { formatLatency, rowDetail, rowTitle } from '../data/summary.js';
import { FaultBadge } from './fault-badge.js';
import { keyStep, VirtualList } from './virtual-list.js';

export const ROW_HEIGHT = 26;

export interface TimelineProps {
  model: TraceModel;
  rows: readonly Row[];
  selected: string | undefined;
  select: (key: string | undefined) => void;
}

const ARROW = { in: '→', out: '←' } as const;

/** Source colours, so merged traces stay apart at a glance. */
export const SOURCE_HUES = [210, 28, 140, 290, 0, 180, 60, 330];

/**
 * Every message in order: time from the start, direction, what it is, its id, latency (a bar scaled to the
 * slowest request, log scale so fast calls still show), and a one-line summary. Messages that belong to a
 * request are indented under it; failed exchanges are marked red.
 */
export function Timeline({ model, rows, selected, select }: TimelineProps) {
  const start = model.start() ?? 0;
  const maxLatency = model.maxLatency();
  const multi = model.sources.length > 1;
  const faults = useMemo(() => faultMarks(model.rows()), [model, model.version]);
  const selectedIndex = selected === undefined ? -1 : rows.findIndex((r) => r.key === selected);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') return select(undefined);
    const next = keyStep(event, selectedIndex, rows.length, 20);
    if (next !== undefined && rows[next]) select(rows[next].key);
  };
  const render = (i: number) => {
    const row = rows[i]!;
    const exchange = row.exchange;
    const latency = exchange?.latencyMs;
    const classes = ['row', `k-${row.kind}`];
    if (row.dir) classes.push(`d-${row.dir}`);
    if (isErrorRow(row)) classes.push('err');
    if (row.key === selected) classes.push('sel');
    if (exchange && exchange.outcome === 'unanswered') classes.push('unanswered');
    return (
      // biome-ignore lint/a11y/useKeyWithClickEvents: the listbox around the rows handles the keys (arrows, Page Up/Down, Home, End)
      <div
        key={row.key}
        tabIndex={-1}
        class={classes.join(' ')}
        onClick={() => select(row.key)}
        role="option"
        data-key={row.key}
        aria-selected={row.key === selected}
      >
        <span class="c-time">{row.time === undefined ? '' : formatOffset(row.time - start)}</span>
        {multi ? (
          <span
            class="c-src"
            style={{ background: `hsl(${SOURCE_HUES[row.src % SOURCE_HUES.length]} 70% 50%)` }}
            title={model.sources[row.src]?.info.name}
          />
        ) : null}
        <span class="c-dir">{row.dir ? ARROW[row.dir] : row.kind === 'stderr' ? '!' : '·'}</span>
        <span class="c-title" style={{ paddingLeft: `${row.depth * 16}px` }}>
          {row.depth > 0 ? <span class="tree">└ </span> : null}
          {row.kind === 'response' ? <span class="muted">↳ </span> : null}
          {rowTitle(row)}
          {exchange && row.kind === 'response' ? <FaultBadge marks={faults.get(exchange)} /> : null}
        </span>
        <span class="c-id">{exchange ? idTag(exchange.id) : ''}</span>
        <span class="c-lat">
          {latency !== undefined ? (
            <>
              <span class="bar" style={{ width: `${barWidth(latency, maxLatency)}%` }} />
              <span class="lat-text">{formatLatency(latency)}</span>
            </>
          ) : exchange && row.kind === 'request' ? (
            <span class="lat-text muted">{exchange.outcome === 'open' ? 'pending' : exchange.outcome}</span>
          ) : null}
        </span>
        <span class="c-detail">{rowDetail(row)}</span>
      </div>
    );
  };
  return (
    <VirtualList
      class="timeline"
      label="timeline"
      count={rows.length}
      rowHeight={ROW_HEIGHT}
      render={render}
      scrollToIndex={selectedIndex}
      onKeyDown={onKeyDown}
    />
  );
}

/** Bar width in percent: log scale from 1 ms up to the slowest request. */
export function barWidth(ms: number, max: number): number {
  if (max <= 0) return 0;
  const scale = Math.log10(1 + max);
  return Math.max(2, Math.min(100, (Math.log10(1 + Math.max(0, ms)) / scale) * 100));
}
