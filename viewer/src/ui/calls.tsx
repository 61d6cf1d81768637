import { argumentSummary, formatOffset, resultSummary, toolName } from 'mcp-tapedeck/trace';
import { useMemo } from 'preact/hooks';
import { CALL_COLUMNS, type CallColumn, parseSort, SORTABLE } from '../data/calls.js';
import { faultMarks } from '../data/faults.js';
import type { Finder } from '../data/highlight.js';
import type { TraceModel } from '../data/model.js';
import { isErrorRow, type Row } from '../data/rows.js';
import { formatLatency } from '../data/summary.js';
import { FaultBadge } from './fault-badge.js';
import { type Following, NewRowsMarker } from './follow.js';
import { Marked } from './highlight.js';
import { rowId } from './timeline.js';
import { keyStep, VirtualList } from './virtual-list.js';

const TITLES: Record<CallColumn, string> = {
  time: 'Time',
  tool: 'Tool',
  args: 'Arguments',
  result: 'Result',
  latency: 'Latency',
  status: 'Status',
};

export interface CallsProps {
  model: TraceModel;
  /** The tools/call requests among the filtered rows, sorted (data/calls.ts). */
  calls: readonly Row[];
  /** Whether a search or filter narrowed the rows (what the empty table says). */
  filtered: boolean;
  /** `latency`, `-latency` (descending), … */
  sort: string | undefined;
  setSort: (sort: string) => void;
  selected: string | undefined;
  select: (key: string | undefined) => void;
  find?: Finder | undefined;
  /** Following a trace as it is recorded (only while sorted by time, where new calls come last). */
  following?: Following | undefined;
  rowHeight?: number;
}

/** The tools/call table: one row per call, sortable by column, narrowed by the same search as the timeline. */
export function Calls({
  model,
  calls,
  filtered,
  sort,
  setSort,
  selected,
  select,
  find,
  following,
  rowHeight = 26,
}: CallsProps) {
  const { column, desc } = parseSort(sort);
  const start = model.start() ?? 0;
  const faults = useMemo(() => faultMarks(model.rows()), [model, model.version]);
  const selectedIndex = selected === undefined ? -1 : calls.findIndex((r) => r.key === selected);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') return select(undefined);
    const next = keyStep(event, selectedIndex, calls.length, 20);
    if (next !== undefined && calls[next]) select(calls[next].key);
  };
  const header = (
    <div class="calls-head row">
      {CALL_COLUMNS.map((c) => {
        const sortable = SORTABLE.includes(c);
        const active = c === column;
        const arrow = active ? (desc ? ' ▾' : ' ▴') : '';
        return sortable ? (
          <button
            type="button"
            class={`c-${c} sort${active ? ' active' : ''}`}
            onClick={() => setSort(active && !desc ? `-${c}` : c)}
            title={`Sort by ${TITLES[c].toLowerCase()}`}
          >
            {TITLES[c]}
            {arrow}
          </button>
        ) : (
          <span class={`c-${c}`}>{TITLES[c]}</span>
        );
      })}
    </div>
  );
  const render = (i: number) => {
    const row = calls[i]!;
    const exchange = row.exchange!;
    const classes = ['row', 'call'];
    if (isErrorRow(row)) classes.push('err');
    if (row.key === selected) classes.push('sel');
    const params = exchange.request.params;
    return (
      // biome-ignore lint/a11y/useKeyWithClickEvents: the listbox around the rows handles the keys (arrows, Page Up/Down, Home, End)
      <div
        key={row.key}
        tabIndex={-1}
        class={classes.join(' ')}
        role="option"
        id={rowId(row.key)}
        data-key={row.key}
        onClick={() => select(row.key)}
        aria-selected={row.key === selected}
      >
        <span class="c-time">{row.time === undefined ? '' : formatOffset(row.time - start)}</span>
        <span class="c-tool">
          <Marked text={toolName(exchange.request) ?? '?'} find={find} />
        </span>
        <span class="c-args">
          <Marked text={argumentSummary(params?.arguments, 120)} find={find} />
        </span>
        <span class="c-result">
          <Marked text={resultSummary(exchange, 120)} find={find} />
        </span>
        <span class="c-latency">
          {exchange.latencyMs === undefined ? '' : formatLatency(exchange.latencyMs)}
        </span>
        <span class={`c-status o-${exchange.outcome}`}>
          {exchange.outcome.replace('_', ' ')}
          <FaultBadge marks={faults.get(exchange)} />
        </span>
      </div>
    );
  };
  const follows = following && column === 'time' && !desc ? following : undefined;
  return (
    <div class="calls">
      {header}
      {calls.length === 0 ? (
        <p class="empty">No tools/call in {filtered ? 'the filtered rows' : 'this trace'}.</p>
      ) : (
        <VirtualList
          label="calls"
          class="calls-list"
          count={calls.length}
          rowHeight={rowHeight}
          render={render}
          scrollToIndex={selectedIndex}
          onKeyDown={onKeyDown}
          activeId={selected === undefined || selectedIndex < 0 ? undefined : rowId(selected)}
          pinned={follows?.pinned}
          onAtBottom={follows?.onAtBottom}
          overlay={follows ? <NewRowsMarker following={follows} /> : undefined}
        />
      )}
    </div>
  );
}
