import { useEffect, useState } from 'preact/hooks';
import { formatOffset, idTag } from 'tapedeck/trace';
import type { PagedView } from '../data/paged-view.js';
import { isErrorRow, type Row } from '../data/rows.js';
import { formatLatency, rowDetail, rowTitle } from '../data/summary.js';
import { barWidth, ROW_HEIGHT } from './timeline.js';
import { keyStep, VirtualList } from './virtual-list.js';

export interface PagedTimelineProps {
  view: PagedView;
  /** The trace's zero and its slowest request, for the time column and the latency bars. */
  start: number;
  maxLatency: number;
  selected: string | undefined;
  select: (key: string | undefined) => void;
}

const ARROW = { in: '→', out: '←' } as const;

/**
 * The timeline of a paged trace: the same rows as the timeline of a trace held whole (same columns, same marks),
 * each fetched with its page when the list scrolls to it; a row still on its way is an empty line. A selection
 * from a link is looked up on the server and scrolled to.
 */
export function PagedTimeline({ view, start, maxLatency, selected, select }: PagedTimelineProps) {
  const [located, setLocated] = useState<{ key: string; index: number } | undefined>();
  const known = selected === undefined ? -1 : view.indexOf(selected);
  useEffect(() => {
    if (selected === undefined || known >= 0 || located?.key === selected) return;
    let live = true;
    view.locate(selected).then(
      (index) => live && setLocated({ key: selected, index }),
      () => live && setLocated({ key: selected, index: -1 }),
    );
    return () => {
      live = false;
    };
  }, [selected, view, known]);
  const selectedIndex = known >= 0 ? known : located?.key === selected ? (located?.index ?? -1) : -1;
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') return select(undefined);
    const next = keyStep(event, selectedIndex, view.count, 20);
    const row = next === undefined ? undefined : view.at(next);
    if (row) select(row.key);
  };
  const render = (i: number) => {
    const row = view.at(i);
    if (!row) return <div key={`pending-${i}`} class="row pending" aria-busy="true" />;
    return (
      <TimelineRow
        key={row.key}
        row={row}
        start={start}
        maxLatency={maxLatency}
        selected={selected}
        select={select}
      />
    );
  };
  return (
    <VirtualList
      class="timeline paged"
      label="timeline"
      count={view.count}
      rowHeight={ROW_HEIGHT}
      render={render}
      scrollToIndex={selectedIndex}
      onKeyDown={onKeyDown}
    />
  );
}

function TimelineRow({
  row,
  start,
  maxLatency,
  selected,
  select,
}: {
  row: Row;
  start: number;
  maxLatency: number;
  selected: string | undefined;
  select: (key: string) => void;
}) {
  const exchange = row.exchange;
  const latency = exchange?.latencyMs;
  const classes = ['row', `k-${row.kind}`];
  if (row.dir) classes.push(`d-${row.dir}`);
  if (isErrorRow(row)) classes.push('err');
  if (row.key === selected) classes.push('sel');
  if (exchange?.outcome === 'unanswered') classes.push('unanswered');
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the listbox around the rows handles the keys
    <div
      tabIndex={-1}
      class={classes.join(' ')}
      onClick={() => select(row.key)}
      role="option"
      data-key={row.key}
      aria-selected={row.key === selected}
    >
      <span class="c-time">{row.time === undefined ? '' : formatOffset(row.time - start)}</span>
      <span class="c-dir">{row.dir ? ARROW[row.dir] : row.kind === 'stderr' ? '!' : '·'}</span>
      <span class="c-title" style={{ paddingLeft: `${row.depth * 16}px` }}>
        {row.depth > 0 ? <span class="tree">└ </span> : null}
        {row.kind === 'response' ? <span class="muted">↳ </span> : null}
        {rowTitle(row)}
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
}
