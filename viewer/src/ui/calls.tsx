import { useMemo } from 'preact/hooks';
import { argumentSummary, formatOffset, resultSummary, toolName } from 'tapedeck/trace';
import { faultMarks } from '../data/faults.js';
import type { TraceModel } from '../data/model.js';
import { isErrorRow, type Row } from '../data/rows.js';
import { formatLatency } from '../data/summary.js';
import { FaultBadge } from './fault-badge.js';
import { keyStep, VirtualList } from './virtual-list.js';

export const CALL_COLUMNS = ['time', 'tool', 'args', 'result', 'latency', 'status'] as const;
export type CallColumn = (typeof CALL_COLUMNS)[number];
const SORTABLE: readonly CallColumn[] = ['time', 'tool', 'latency', 'status'];
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
  /** The timeline rows after search and filters: the table shows their tools/call requests. */
  rows: readonly Row[];
  /** `latency`, `-latency` (descending), … */
  sort: string | undefined;
  setSort: (sort: string) => void;
  selected: string | undefined;
  select: (key: string | undefined) => void;
}

/** Sort key of a call for a column. */
function sortValue(row: Row, column: CallColumn): number | string {
  const exchange = row.exchange!;
  switch (column) {
    case 'tool':
      return toolName(exchange.request) ?? '';
    case 'latency':
      return exchange.latencyMs ?? -1;
    case 'status':
      return exchange.outcome;
    default:
      return row.time ?? 0;
  }
}

/** Parses `-latency` into a column and a direction; unknown columns sort by time. */
export function parseSort(sort: string | undefined): { column: CallColumn; desc: boolean } {
  const desc = sort?.startsWith('-') ?? false;
  const name = (desc ? sort!.slice(1) : sort) as CallColumn;
  return { column: SORTABLE.includes(name) ? name : 'time', desc };
}

/** The tools/call table: one row per call, sortable by column, narrowed by the same search as the timeline. */
export function Calls({ model, rows, sort, setSort, selected, select }: CallsProps) {
  const { column, desc } = parseSort(sort);
  const calls = useMemo(() => {
    const list = rows.filter(
      (r) => r.kind === 'request' && r.exchange!.method === 'tools/call' && r.exchange!.dir === 'in',
    );
    if (column !== 'time' || desc) {
      const sign = desc ? -1 : 1;
      list.sort((a, b) => {
        const x = sortValue(a, column);
        const y = sortValue(b, column);
        return (x < y ? -1 : x > y ? 1 : 0) * sign || a.src - b.src || (a.time ?? 0) - (b.time ?? 0);
      });
    }
    return list;
  }, [rows, column, desc, model.version]);
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
        data-key={row.key}
        onClick={() => select(row.key)}
        aria-selected={row.key === selected}
      >
        <span class="c-time">{row.time === undefined ? '' : formatOffset(row.time - start)}</span>
        <span class="c-tool">{toolName(exchange.request) ?? '?'}</span>
        <span class="c-args">{argumentSummary(params?.arguments, 120)}</span>
        <span class="c-result">{resultSummary(exchange, 120)}</span>
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
  return (
    <div class="calls">
      {header}
      {calls.length === 0 ? (
        <p class="empty">No tools/call in {rows === model.rows() ? 'this trace' : 'the filtered rows'}.</p>
      ) : (
        <VirtualList
          label="calls"
          class="calls-list"
          count={calls.length}
          rowHeight={26}
          render={render}
          scrollToIndex={selectedIndex}
          onKeyDown={onKeyDown}
        />
      )}
    </div>
  );
}
