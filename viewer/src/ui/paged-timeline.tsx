import { useEffect, useState } from 'preact/hooks';
import type { Finder } from '../data/highlight.js';
import type { TraceModel } from '../data/model.js';
import type { PagedView } from '../data/paged-view.js';
import { ROW_HEIGHTS, useNarrow } from './narrow.js';
import { rowId, TimelineRow } from './timeline.js';
import { keyStep, VirtualList } from './virtual-list.js';

export interface PagedTimelineProps {
  model: TraceModel;
  view: PagedView;
  /** The trace's zero and its slowest request, for the time column and the latency bars. */
  start: number;
  maxLatency: number;
  selected: string | undefined;
  select: (key: string | undefined) => void;
  find: Finder | undefined;
}

/**
 * The timeline of a paged trace: the timeline's own rows (TimelineRow), each fetched with its page when the list
 * scrolls to it; a row still on its way is an empty line. A selection from a link is looked up on the server and
 * scrolled to.
 */
export function PagedTimeline({
  model,
  view,
  start,
  maxLatency,
  selected,
  select,
  find,
}: PagedTimelineProps) {
  const narrow = useNarrow();
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
        model={model}
        start={start}
        maxLatency={maxLatency}
        multi={false}
        selected={selected}
        select={select}
        find={find}
      />
    );
  };
  return (
    <VirtualList
      class="timeline paged"
      label="timeline"
      count={view.count}
      rowHeight={narrow ? ROW_HEIGHTS.narrow : ROW_HEIGHTS.wide}
      render={render}
      scrollToIndex={selectedIndex}
      onKeyDown={onKeyDown}
      activeId={selected === undefined || selectedIndex < 0 ? undefined : rowId(selected)}
    />
  );
}
