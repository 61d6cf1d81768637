import { formatLatency } from '../../base/units.js';
import type { AlignedItem, AlignKind, TraceAlignment, ValueChange, ValueDiff } from '../../trace/align.js';
import { describeRequest } from '../../trace/describe.js';
import { diffExcerpt } from '../../trace/excerpt.js';
import type { Exchange } from '../../trace/exchange.js';
import { createNormalizer } from '../../trace/normalize.js';
import { clipWidth } from '../../trace/text-width.js';
import type { Json } from '../../trace/types.js';
import { type Palette, palette, visibleWidth } from './color.js';
import { DEFAULT_WIDTH, fitLine } from './wrap.js';

/**
 * The output of `tapedeck diff`: one line per request with a kind marker, what was asked and the latency change; under
 * a changed one, where it differs (path: a → b). Long runs of unchanged requests fold to a count unless `all`.
 * `--json` prints {@link DiffDocument} instead.
 */

/** One side of the diff as the report names it. */
export interface DiffSide {
  path: string;
  format: string;
  label: string;
  startedAt: string | undefined;
  /** 1-based line number of each exchange's request, by pairing index (see `lineOf`). */
  lineOf: (exchange: Exchange) => number | undefined;
}

export interface DiffReportOptions {
  color: boolean;
  /** Show every unchanged request instead of folding long runs. */
  all: boolean;
  /** Columns to fit: request phrases are cut, long values shown as excerpts around their change. Default 80. */
  width?: number | undefined;
}

/** What every line of the report needs to know. */
interface Layout {
  c: Palette;
  width: number;
}

/** Unchanged requests kept on each side of a change when a run is folded. */
const CONTEXT = 2;
/** Differences printed per params or result diff. */
const SHOWN = 3;

const MARKERS: Record<AlignKind, string> = { same: '=', changed: '~', added: '+', removed: '-' };

const describer = createNormalizer();

/** The request in one short phrase: method, target, arguments (normalized: no ids or tokens). */
function phrase(exchange: Exchange): string {
  return describeRequest(describer.normalize(exchange.method, exchange.request.params), 60);
}

function signed(ms: number): string {
  return `${ms > 0 ? '+' : ms < 0 ? '-' : '±'}${formatLatency(Math.abs(ms))}`;
}

function latencyText(item: AlignedItem, c: Palette): string {
  const a = item.a?.latencyMs;
  const b = item.b?.latencyMs;
  if (a !== undefined && b !== undefined) {
    const delta = signed(b - a);
    return `${formatLatency(a)} → ${formatLatency(b)} ${item.latencyDeltaMs === 0 ? c.dim(`(${delta})`) : `(${delta})`}`;
  }
  const one = a ?? b;
  return one === undefined ? '' : formatLatency(one);
}

/** Where a change's lines start, and its two sides under it. */
const CHANGE_INDENT = '      ';
const SIDE_INDENT = '        ';

/** A value as the report shows it: JSON, `absent` for a missing one. */
function valueText(value: Json | undefined): string {
  return value === undefined ? 'absent' : JSON.stringify(value);
}

/**
 * One difference: `path: a → b` when that fits the line; else the path, then each side on its own line (`a …`,
 * `b …`), cut to the width around the first character that differs and lined up, the changed part coloured.
 */
function changeLines(change: ValueChange, { c, width }: Layout): string[] {
  const a = valueText(change.a);
  const b = valueText(change.b);
  const one = `${CHANGE_INDENT}${change.path}: ${c.red(a)} → ${c.green(b)}`;
  if (visibleWidth(one) <= width) return [one];
  const room = width - SIDE_INDENT.length - 2;
  const excerpt = diffExcerpt(a, b, room);
  const mark = (text: string, end: number, tone: (s: string) => string) =>
    excerpt.at < 0 ? text : text.slice(0, excerpt.at) + tone(text.slice(excerpt.at, end)) + text.slice(end);
  return [
    ...fitLine(`${CHANGE_INDENT}${change.path}:`, width, 2),
    `${SIDE_INDENT}${c.dim('a')} ${mark(excerpt.a, excerpt.endA, c.red)}`,
    `${SIDE_INDENT}${c.dim('b')} ${mark(excerpt.b, excerpt.endB, c.green)}`,
  ];
}

function diffLines(label: string, diff: ValueDiff | undefined, layout: Layout): string[] {
  if (!diff) return [];
  const lines = diff.entries.slice(0, SHOWN).flatMap((e) => changeLines(e, layout));
  const more = diff.total - Math.min(SHOWN, diff.entries.length);
  if (more > 0)
    lines.push(
      layout.c.dim(`${CHANGE_INDENT}… and ${more} more ${label} difference${more === 1 ? '' : 's'}`),
    );
  return lines;
}

function itemLines(item: AlignedItem, alignment: TraceAlignment, layout: Layout): string[] {
  const { c, width } = layout;
  const colour = { same: c.dim, changed: c.yellow, added: c.green, removed: c.red }[item.kind];
  const exchange = (item.a ?? item.b) as Exchange;
  const where = item.kind === 'added' ? `b#${(item.bIndex ?? 0) + 1}` : `#${(item.aIndex ?? 0) + 1}`;
  const server = alignment.multiServer ? `${c.magenta(`[${item.server ?? '-'}]`)} ` : '';
  const latency = latencyText(item, c);
  const lead = `${colour(MARKERS[item.kind])} ${c.dim(where.padEnd(6))} ${server}`;
  const tail = latency === '' ? '' : `  ${c.dim(latency)}`;
  // The request's phrase gives way to the latency: it is a preview, and the latency is the row's figure.
  const room = Math.max(12, width - visibleWidth(lead) - visibleWidth(tail));
  const text = clipWidth(phrase(exchange), room);
  return [
    `${lead}${item.kind === 'same' ? c.dim(text) : text}${tail}`,
    ...diffLines('params', item.params, layout),
    ...diffLines('answer', item.result, layout),
  ];
}

/**
 * The terminal report.
 *
 * @example renderDiff(alignTraces(a, b), [sideA, sideB], { color: false, all: false })
 */
export function renderDiff(
  alignment: TraceAlignment,
  sides: readonly [DiffSide, DiffSide],
  options: DiffReportOptions,
): string {
  const c = palette(options.color);
  const layout: Layout = { c, width: options.width ?? DEFAULT_WIDTH };
  const out: string[] = [];
  for (const [name, side] of [
    ['a', sides[0]],
    ['b', sides[1]],
  ] as const) {
    const about = [side.label, side.startedAt].filter(Boolean).join(' · ');
    out.push(...fitLine(`${c.bold(name)}  ${side.path}${about ? c.dim(`  ${about}`) : ''}`, layout.width, 3));
  }
  out.push('');
  const { items } = alignment;
  for (let i = 0; i < items.length; ) {
    let end = i;
    while (end < items.length && items[end]?.kind === 'same') end++;
    const run = end - i;
    if (!options.all && run > 2 * CONTEXT + 1) {
      const keepBefore = i === 0 ? 0 : CONTEXT;
      const keepAfter = end === items.length ? 0 : CONTEXT;
      for (const item of items.slice(i, i + keepBefore)) out.push(...itemLines(item, alignment, layout));
      const folded = run - keepBefore - keepAfter;
      out.push(c.dim(`  … ${folded} unchanged request${folded === 1 ? '' : 's'} …`));
      for (const item of items.slice(end - keepAfter, end)) out.push(...itemLines(item, alignment, layout));
      i = end;
      continue;
    }
    const stop = Math.max(end, i + 1);
    for (const item of items.slice(i, stop)) out.push(...itemLines(item, alignment, layout));
    i = stop;
  }
  if (items.length > 0) out.push('');
  const [summary, latency] = summaryLine(alignment, c);
  // The latency goes on a line of its own rather than have the sentence break anywhere.
  if (latency === '' || visibleWidth(`${summary}; ${latency}`) <= layout.width)
    out.push(...fitLine(latency === '' ? summary : `${summary}; ${latency}`, layout.width));
  else out.push(...fitLine(summary, layout.width), ...fitLine(latency, layout.width));
  return `${out.join('\n')}\n`;
}

/** The closing sentence, and the latency clause that ends it ('' when no request was in both). */
function summaryLine(alignment: TraceAlignment, c: Palette): [string, string] {
  const s = alignment.summary;
  const counts = `${s.requests.a} request${s.requests.a === 1 ? '' : 's'} in a, ${s.requests.b} in b`;
  const latency = s.same + s.changed > 0 ? `latency ${signed(s.latencyDeltaMs)} in all` : '';
  if (s.identical) return [`${c.green('no differences')}: ${counts}, all the same`, latency];
  const parts = [
    `${s.same} same`,
    c.yellow(`${s.changed} changed`),
    c.red(`${s.removed} removed`),
    c.green(`${s.added} added`),
  ];
  return [`${counts}: ${parts.join(', ')}`, latency];
}

/** `tapedeck diff --json`: a stable shape, "version": 1. */
export interface DiffDocument {
  version: 1;
  identical: boolean;
  a: DocumentSide;
  b: DocumentSide;
  summary: TraceAlignment['summary'];
  items: DocumentItem[];
}

interface DocumentSide {
  path: string;
  format: string;
  label: string;
  startedAt: string | null;
}

interface DocumentExchange {
  /** 0-based position among the trace's client requests. */
  index: number;
  id: string | number;
  /** 1-based line of the request in its file, when known. */
  line: number | null;
  outcome: string;
  latencyMs: number | null;
}

interface DocumentItem {
  kind: AlignKind;
  method: string;
  target: string | null;
  server: string | null;
  request: string;
  a: DocumentExchange | null;
  b: DocumentExchange | null;
  params: ValueDiff | null;
  result: ValueDiff | null;
  latencyDeltaMs: number | null;
}

/**
 * The JSON document of a diff.
 *
 * @example JSON.stringify(diffDocument(alignment, [sideA, sideB]), null, 2)
 */
export function diffDocument(alignment: TraceAlignment, sides: readonly [DiffSide, DiffSide]): DiffDocument {
  const side = (s: DiffSide): DocumentSide => ({
    path: s.path,
    format: s.format,
    label: s.label,
    startedAt: s.startedAt ?? null,
  });
  const exchange = (x: Exchange | undefined, index: number | undefined, s: DiffSide) =>
    x === undefined || index === undefined
      ? null
      : {
          index,
          id: x.id,
          line: s.lineOf(x) ?? null,
          outcome: x.outcome,
          latencyMs: x.latencyMs ?? null,
        };
  return {
    version: 1,
    identical: alignment.summary.identical,
    a: side(sides[0]),
    b: side(sides[1]),
    summary: alignment.summary,
    items: alignment.items.map((item) => ({
      kind: item.kind,
      method: item.method,
      target: item.target ?? null,
      server: item.server ?? null,
      request: phrase((item.a ?? item.b) as Exchange),
      a: exchange(item.a, item.aIndex, sides[0]),
      b: exchange(item.b, item.bIndex, sides[1]),
      params: item.params ?? null,
      result: item.result ?? null,
      latencyDeltaMs: item.latencyDeltaMs ?? null,
    })),
  };
}
