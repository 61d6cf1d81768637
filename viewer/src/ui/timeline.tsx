import { type Exchange, formatOffset, idTag } from 'mcp-tapedeck/trace';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { type FaultMark, faultMarks } from '../data/faults.js';
import { guessedParent, guessTitle } from '../data/guess.js';
import type { Finder } from '../data/highlight.js';
import type { TraceModel } from '../data/model.js';
import { isErrorRow, type Row } from '../data/rows.js';
import { formatLatency, rowDetail, rowTitle } from '../data/summary.js';
import type { RowList } from '../data/trace-view.js';
import { FaultBadge } from './fault-badge.js';
import { type Following, NewRowsMarker } from './follow.js';
import { Marked } from './highlight.js';
import { keyStep, VirtualList } from './virtual-list.js';

export const ROW_HEIGHT = 26;

export interface TimelineProps {
  model: TraceModel;
  /** The rows shown: held in the browser, or a paged trace's, fetched a page at a time as the list scrolls. */
  rows: RowList;
  selected: string | undefined;
  select: (key: string | undefined) => void;
  /** The search's matches, marked in titles and summaries. */
  find?: Finder | undefined;
  /** Following a trace as it is recorded. */
  following?: Following | undefined;
  /** Row height in pixels (taller on narrow screens, where a row takes two lines). */
  rowHeight?: number;
}

/** The element id of a row, for `aria-activedescendant`. */
export const rowId = (key: string) => `row-${key}`;

const ARROW = { in: '→', out: '←' } as const;

/** Source colours, so merged traces stay apart at a glance. */
export const SOURCE_HUES = [210, 28, 140, 290, 0, 180, 60, 330];

/**
 * Every message in order: time from the start, direction, what it is, its id, latency (a bar scaled to the
 * slowest request, log scale so fast calls still show, beside its figure), and a one-line summary. Messages that
 * belong to a request are indented under it — with a dotted connector and a `?` where pairing only guessed that
 * they do; failed exchanges are marked red; search matches are marked. A followed trace's list keeps its newest
 * row in view while it is at its end (follow.tsx). A row of a paged trace still on its way is an empty line; a
 * selection from a link not fetched yet is looked up on the server and scrolled to.
 */
export function Timeline({
  model,
  rows,
  selected,
  select,
  find,
  following,
  rowHeight = ROW_HEIGHT,
}: TimelineProps) {
  const start = model.start() ?? 0;
  const maxLatency = model.maxLatency();
  const multi = model.sources.length > 1;
  const faults = useMemo(() => faultMarks(model.rows()), [model, model.version]);
  const selectedIndex = useSelectedIndex(rows, selected);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') return select(undefined);
    const next = keyStep(event, selectedIndex, rows.count, 20);
    const row = next === undefined ? undefined : rows.at(next);
    if (row) select(row.key);
  };
  const render = (i: number) => {
    const row = rows.at(i);
    if (!row)
      return (
        // biome-ignore lint/a11y/useSemanticElements: a virtual list's rows are positioned blocks, not table rows
        <div
          key={`pending-${i}`}
          class="row pending"
          role="row"
          tabIndex={-1}
          aria-rowindex={i + 1}
          aria-busy="true"
        />
      );
    return (
      <TimelineRow
        key={row.key}
        index={i}
        row={row}
        model={model}
        start={start}
        maxLatency={maxLatency}
        multi={multi}
        selected={selected}
        select={select}
        find={find}
        faults={faults}
      />
    );
  };
  return (
    <VirtualList
      class={rows.held ? 'timeline' : 'timeline paged'}
      role="grid"
      label="timeline"
      count={rows.count}
      rowHeight={rowHeight}
      render={render}
      scrollToIndex={selectedIndex}
      onKeyDown={onKeyDown}
      activeId={selected === undefined || selectedIndex < 0 ? undefined : rowId(selected)}
      pinned={following?.pinned}
      onAtBottom={following?.onAtBottom}
      overlay={following ? <NewRowsMarker following={following} /> : undefined}
    />
  );
}

/** The place of the selected row: at hand, or found on the server (a link to a row of a paged trace). */
function useSelectedIndex(rows: RowList, selected: string | undefined): number {
  const [located, setLocated] = useState<{ key: string; index: number } | undefined>();
  const known = selected === undefined ? -1 : rows.indexOf(selected);
  useEffect(() => {
    if (selected === undefined || known >= 0 || rows.held || located?.key === selected) return;
    let live = true;
    rows.locate(selected).then(
      (index) => live && setLocated({ key: selected, index }),
      () => live && setLocated({ key: selected, index: -1 }),
    );
    return () => {
      live = false;
    };
  }, [selected, rows, known]);
  if (known >= 0) return known;
  return located?.key === selected ? (located?.index ?? -1) : -1;
}

export interface TimelineRowProps {
  row: Row;
  model: TraceModel;
  /** The timeline's zero and its slowest request (for the time column and the latency bars). */
  start: number;
  maxLatency: number;
  /** Several traces are open: a dot in each source's colour. */
  multi: boolean;
  selected: string | undefined;
  select: (key: string | undefined) => void;
  find?: Finder | undefined;
  /** The calls injected faults spoiled, marked on their answers' rows. */
  faults?: ReadonlyMap<Exchange, readonly FaultMark[]> | undefined;
  /** The row's place in the list (0-based), told to assistive technology as its row number. */
  index?: number | undefined;
}

/** One row of the timeline (a trace held whole, or a paged one's row fetched with its page). */
export function TimelineRow({
  row,
  model,
  start,
  maxLatency,
  multi,
  selected,
  select,
  find,
  faults,
  index,
}: TimelineRowProps) {
  const exchange = row.exchange;
  const latency = exchange?.latencyMs;
  const classes = ['row', `k-${row.kind}`];
  if (row.dir) classes.push(`d-${row.dir}`);
  if (isErrorRow(row)) classes.push('err');
  if (row.key === selected) classes.push('sel');
  if (exchange && exchange.outcome === 'unanswered') classes.push('unanswered');
  // A place pairing guessed is drawn as a guess: a dotted connector and a `?` that says why.
  const guess = guessedParent(row);
  if (guess) classes.push('guessed');
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the grid around the rows handles the keys (arrows, Page Up/Down, Home, End)
    // biome-ignore lint/a11y/useSemanticElements: a virtual list's rows are positioned blocks, not table rows
    <div
      key={row.key}
      tabIndex={-1}
      class={classes.join(' ')}
      onClick={() => select(row.key)}
      role="row"
      aria-rowindex={index === undefined ? undefined : index + 1}
      id={rowId(row.key)}
      data-key={row.key}
      aria-selected={row.key === selected}
    >
      <span class="c-time">{row.time === undefined ? '' : formatOffset(row.time - start)}</span>
      {multi ? (
        <span
          class="c-src"
          style={{ background: `hsl(${SOURCE_HUES[row.src % SOURCE_HUES.length]} 70% 50%)` }}
          title={model.source(row.src)?.info.name}
        />
      ) : null}
      <span class="c-dir">{row.dir ? ARROW[row.dir] : row.kind === 'stderr' ? '!' : '·'}</span>
      <span class="c-title" style={{ paddingLeft: `${row.depth * 16}px` }}>
        {row.depth > 0 || guess ? <span class="tree">{guess ? '┆ ' : '└ '}</span> : null}
        {guess ? (
          <abbr class="guess-mark" title={guessTitle(guess)}>
            ?
          </abbr>
        ) : null}
        {row.kind === 'response' ? <span class="muted">↳ </span> : null}
        <Marked text={rowTitle(row)} find={find} />
        {exchange && row.kind === 'response' ? <FaultBadge marks={faults?.get(exchange)} /> : null}
      </span>
      <span class="c-id">{exchange ? idTag(exchange.id) : ''}</span>
      <span class="c-lat">
        {latency !== undefined ? (
          <>
            <span class="lat-text">{formatLatency(latency)}</span>
            <span class="lat-track">
              <span class="bar" style={{ width: `${barWidth(latency, maxLatency)}%` }} />
            </span>
          </>
        ) : exchange && row.kind === 'request' ? (
          <span class="lat-text muted">{exchange.outcome === 'open' ? 'pending' : exchange.outcome}</span>
        ) : null}
      </span>
      <span class="c-detail">
        <Marked text={rowDetail(row)} find={find} />
      </span>
    </div>
  );
}

/** Bar width in percent: log scale from 1 ms up to the slowest request. */
export function barWidth(ms: number, max: number): number {
  if (max <= 0) return 0;
  const scale = Math.log10(1 + max);
  return Math.max(2, Math.min(100, (Math.log10(1 + Math.max(0, ms)) / scale) * 100));
}
