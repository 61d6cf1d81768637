import { type AlignedItem, alignExchanges, type Json, type ValueDiff } from 'mcp-tapedeck/trace';
import { useMemo } from 'preact/hooks';
import { diffStatus } from '../data/diff-status.js';
import type { TraceModel } from '../data/model.js';
import { formatLatency } from '../data/summary.js';
import { ExcerptCells } from './diff-excerpt.js';
import { StatusMark } from './icons.js';
import { JsonTree } from './json-tree.js';
import { ROW_HEIGHTS, useNarrow } from './narrow.js';
import { keyStep, VirtualList } from './virtual-list.js';

export interface DiffProps {
  model: TraceModel;
  version: number;
  params: Readonly<Record<string, string>>;
  set: (changes: Record<string, string | undefined>) => void;
  /** Open a request of one side in the timeline. */
  reveal: (key: string) => void;
  /** Add another trace file to compare with. */
  addFiles: (files: FileList) => void;
}

function delta(ms: number | undefined): string {
  if (ms === undefined) return '';
  return `${ms > 0 ? '+' : ms < 0 ? '−' : '±'}${formatLatency(Math.abs(ms))}`;
}

/**
 * Two traces lined up request by request (src/trace/align.ts, as `tapedeck diff`): same / changed / added /
 * removed, the changed paths of params and results with both values, and latency deltas.
 */
export function DiffView({ model, version, params, set, reveal, addFiles }: DiffProps) {
  const count = model.sources.length;
  // `a` and `b` name traces by index (kept when another trace is closed); unset or closed: the first two open.
  const sourceA = (params.a === undefined ? undefined : model.source(Number(params.a))) ?? model.sources[0];
  const sourceB =
    (params.b === undefined ? undefined : model.source(Number(params.b))) ?? model.sources[count > 1 ? 1 : 0];
  const a = sourceA?.index ?? 0;
  const b = sourceB?.index ?? 0;
  const narrow = useNarrow();
  const alignment = useMemo(() => {
    if (!sourceA || !sourceB || a === b) return undefined;
    return alignExchanges(sourceA.exchanges, sourceB.exchanges, {
      labels: [sourceA.info.name, sourceB.info.name],
      // Values whole: the table cuts each to a window around its first difference (diff-excerpt.tsx).
      diff: { maxEntries: 50, maxValueLength: Number.POSITIVE_INFINITY },
    });
  }, [sourceA, sourceB, version]);
  if (count < 2) {
    return (
      <div class="diff">
        <p class="empty">
          Open a second trace to compare with {sourceA?.info.name ?? 'this one'}:{' '}
          <label class="button">
            choose a file
            <input
              type="file"
              aria-label="add a trace to compare"
              onChange={(e) => {
                const files = (e.currentTarget as HTMLInputElement).files;
                if (files && files.length > 0) addFiles(files);
              }}
            />
          </label>
        </p>
      </div>
    );
  }
  const changesOnly = params.changes === '1';
  const items = (alignment?.items ?? []).filter((item) => !changesOnly || item.kind !== 'same');
  // Nothing picked yet: show the first difference.
  const selected =
    params.pair === undefined ? items.findIndex((it) => it.kind !== 'same') : Number(params.pair);
  const item = selected >= 0 ? items[selected] : undefined;
  const summary = alignment?.summary;
  const picker = (side: 'a' | 'b', value: number) => (
    <select
      aria-label={`trace ${side}`}
      value={String(value)}
      onChange={(e) => set({ [side]: e.currentTarget.value, pair: undefined })}
    >
      {model.sources.map((s) => (
        <option key={s.index} value={String(s.index)}>
          {s.info.name}
        </option>
      ))}
    </select>
  );
  const onKeyDown = (event: KeyboardEvent) => {
    const next = keyStep(event, selected, items.length, 20);
    if (next !== undefined) set({ pair: String(next) });
  };
  const render = (i: number) => {
    const it = items[i]!;
    const status = diffStatus(it);
    return (
      // biome-ignore lint/a11y/useKeyWithClickEvents: the listbox around the rows handles the keys
      <div
        key={i}
        tabIndex={-1}
        role="option"
        aria-selected={i === selected}
        class={`row diff-row st-${status}${i === selected ? ' sel' : ''}`}
        data-kind={it.kind}
        data-status={status}
        onClick={() => set({ pair: String(i) })}
      >
        <span class="c-mark">
          <StatusMark status={status} />
        </span>
        <span class="c-kind">{status}</span>
        <span class="c-title">
          {it.method}
          {it.target ? ` ${it.target}` : ''}
        </span>
        <span class="c-changes">{describe(it)}</span>
        <span class="num">{it.a?.latencyMs === undefined ? '' : formatLatency(it.a.latencyMs)}</span>
        <span class="num">{it.b?.latencyMs === undefined ? '' : formatLatency(it.b.latencyMs)}</span>
        <span class={`num ${deltaClass(it.latencyDeltaMs)}`}>{delta(it.latencyDeltaMs)}</span>
      </div>
    );
  };
  return (
    <div class="diff">
      <div class="diff-pick">
        <span>Compare</span>
        {picker('a', a)}
        <span>with</span>
        {picker('b', b)}
        <label class="check">
          <input
            type="checkbox"
            checked={changesOnly}
            onChange={(e) =>
              set({
                changes: (e.currentTarget as HTMLInputElement).checked ? '1' : undefined,
                pair: undefined,
              })
            }
          />
          Changes only
        </label>
        {summary ? (
          <span class="diff-summary" data-identical={summary.identical}>
            <span class="st-same">{summary.same} same</span> ·{' '}
            <span class="st-changed">{summary.changed} changed</span> ·{' '}
            <span class="st-added">{summary.added} added</span> ·{' '}
            <span class="st-removed">{summary.removed} removed</span> · latency{' '}
            {delta(summary.latencyDeltaMs)}
          </span>
        ) : null}
      </div>
      {a === b ? <p class="empty">Pick two different traces.</p> : null}
      <div class="diff-body">
        <div class="row diff-head">
          <span />
          <span>Status</span>
          <span>Request</span>
          <span>What changed</span>
          <span class="num">A</span>
          <span class="num">B</span>
          <span class="num">Δ</span>
        </div>
        <VirtualList
          class="diff-list"
          label="aligned requests"
          count={items.length}
          rowHeight={narrow ? ROW_HEIGHTS.narrow : ROW_HEIGHTS.wide}
          render={render}
          scrollToIndex={selected}
          onKeyDown={onKeyDown}
        />
      </div>
      {item ? (
        <DiffDetail
          item={item}
          revealA={() => revealExchange(model, a, item.a, reveal)}
          revealB={() => revealExchange(model, b, item.b, reveal)}
        />
      ) : null}
    </div>
  );
}

function deltaClass(ms: number | undefined): string {
  return ms === undefined || ms === 0 ? 'muted' : ms > 0 ? 'delta-up' : 'delta-down';
}

function revealExchange(
  model: TraceModel,
  src: number,
  exchange: AlignedItem['a'],
  reveal: (key: string) => void,
): void {
  const row = exchange ? model.source(src)?.requestRow(exchange) : undefined;
  if (row) reveal(row.key);
}

function describe(item: AlignedItem): string {
  const paths = [...(item.params?.entries ?? []), ...(item.result?.entries ?? [])].map((e) => e.path);
  if (paths.length === 0)
    return item.kind === 'same'
      ? ''
      : item.kind === 'added'
        ? 'only in B'
        : item.kind === 'removed'
          ? 'only in A'
          : '';
  const total = (item.params?.total ?? 0) + (item.result?.total ?? 0);
  return paths.slice(0, 3).join(', ') + (total > 3 ? ` … ${total} in all` : '');
}

function Changes({ title, diff }: { title: string; diff: ValueDiff | undefined }) {
  if (!diff) return null;
  return (
    <div class="section">
      <h3>
        {title}{' '}
        <span class="muted">
          {diff.total} {diff.total === 1 ? 'difference' : 'differences'}
        </span>
      </h3>
      <table class="changes">
        <tbody>
          {diff.entries.map((e) => (
            <tr key={e.path} data-path={e.path}>
              <td>{e.path}</td>
              <ExcerptCells a={e.a} b={e.b} />
            </tr>
          ))}
        </tbody>
      </table>
      {diff.total > diff.entries.length ? (
        <p class="muted">… and {diff.total - diff.entries.length} more</p>
      ) : null}
    </div>
  );
}

function DiffDetail({
  item,
  revealA,
  revealB,
}: {
  item: AlignedItem;
  revealA: () => void;
  revealB: () => void;
}) {
  const side = (label: string, exchange: AlignedItem['a'], open: () => void) =>
    exchange ? (
      <div class="diff-side">
        <h3>
          {label}{' '}
          <button type="button" class="linkish" onClick={open}>
            show in timeline
          </button>
        </h3>
        <JsonTree value={(exchange.request.params ?? null) as Json} open={2} />
        <JsonTree value={(exchange.response?.error ?? exchange.response?.result ?? null) as Json} open={2} />
      </div>
    ) : (
      <div class="diff-side">
        <h3>{label}</h3>
        <p class="muted">Not in this trace.</p>
      </div>
    );
  return (
    <section class="diff-detail" aria-label="aligned request detail">
      <h2>
        <span class={`st-${item.kind}`}>{item.kind}</span> {item.method} {item.target ?? ''}
        {item.latencyDeltaMs !== undefined ? (
          <span class="muted"> · latency {delta(item.latencyDeltaMs)}</span>
        ) : null}
      </h2>
      <Changes title="Params" diff={item.params} />
      <Changes title="Result" diff={item.result} />
      <div class="diff-sides">
        {side('A', item.a, revealA)}
        {side('B', item.b, revealB)}
      </div>
    </section>
  );
}
