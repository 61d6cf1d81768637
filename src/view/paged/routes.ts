import type { ServerResponse } from 'node:http';
import { PRODUCER } from '../../base/version.js';
import { encodeLine } from '../../trace/encode.js';
import type {
  PagedBarsPage,
  PagedDensity,
  PagedErrors,
  PagedFound,
  PagedInfo,
  PagedRowsPage,
  PagedStats,
} from '../../trace/paged.js';
import { type LineQuery, queryFromParams } from '../../trace/query.js';
import type { EndLine, MetaLine } from '../../trace/types.js';
import { errorStep, type Failures, failuresOf } from './errors.js';
import { readRanges } from './line-offsets.js';
import { barsPage, rowsPage } from './pages.js';
import { barsOf, type FilterResult } from './query.js';
import type { TraceIndex } from './trace-index.js';
import { FilteredViews } from './views.js';

/**
 * The paged trace's API under `tapedeck view`'s token (`api/paged/…`), JSON unless said otherwise:
 *
 *   info                                  name, meta, how far indexing got, rows and requests so far, facets
 *   rows?from=&count=&early=&<filter>     a page of rows of the (filtered) view, and how many the view holds;
 *                                         with early=1 a page among the first rows may come before the view is
 *                                         counted (counted: false, total the rows found so far): count=0 counts
 *   find?key=&<filter>                    one row by its key, and its place in the view (-1 when filtered out)
 *   bars?from=&to=&start=&count=&<filter> a page of the waterfall's bars overlapping [from, to] (epoch ms)
 *   density?buckets=&<filter>             requests in flight per slice of the whole trace
 *   errors?key=&step=&<filter>            failures per failing call: how many, where the row `key` stands among
 *                                         them, and with step 1 or -1 the first row of the next or previous one
 *   stats                                 `tapedeck stats` figures, tool time, latency samples for the charts
 *   export?<filter>                       the view as tapedeck JSONL, a download
 *
 * <filter> is the viewer's own link parameters: q, re, tool, method, dir, server, err. The answers' shapes are
 * trace/paged.ts's, which the viewer reads.
 */

/** Rows or bars per page at most. */
const MAX_PAGE = 1000;

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

const count = (value: string | null, fallback: number, max: number) => {
  const n = Number(value ?? fallback);
  return Number.isFinite(n) ? Math.max(0, Math.min(max, Math.floor(n))) : fallback;
};

/** The paged API of one index, with its cache of filtered views. */
export function pagedRoutes(index: TraceIndex) {
  const views = new FilteredViews(index);
  const view = (filter: LineQuery) => views.view(filter);
  const failed = new WeakMap<FilterResult, Failures>();
  const failuresIn = (result: FilterResult) => {
    let failures = failed.get(result);
    if (!failures) {
      failures = failuresOf(index, result);
      failed.set(result, failures);
    }
    return failures;
  };
  const size = (result: FilterResult) => result.rows?.length ?? index.rowCount;
  const rowAt = (result: FilterResult, n: number) => (result.rows ? result.rows[n]! : n);

  return async function route(path: string, params: URLSearchParams, res: ServerResponse): Promise<boolean> {
    switch (path) {
      case 'info':
        json(res, 200, info(index));
        return true;
      case 'rows': {
        const filter = queryFromParams(params);
        const from = count(params.get('from'), 0, Number.MAX_SAFE_INTEGER);
        const n = count(params.get('count'), 200, MAX_PAGE);
        const early = params.get('early') === '1' ? await views.earlyPage(filter, from, n) : undefined;
        if (early) {
          json(res, 200, early);
          return true;
        }
        const result = await view(filter);
        const total = size(result);
        const start = Math.min(from, total);
        const rows = [];
        for (let i = start; i < Math.min(total, start + n); i++) rows.push(rowAt(result, i));
        json(res, 200, {
          total,
          counted: true,
          done: index.done,
          error: result.error ?? null,
          rows: await rowsPage(index, rows, start),
        } satisfies PagedRowsPage);
        return true;
      }
      case 'find': {
        const row = findRow(index, params.get('key') ?? '');
        if (row < 0) {
          json(res, 404, { error: `no row ${params.get('key')} in this trace` });
          return true;
        }
        const result = await view(queryFromParams(params));
        const n = result.rows ? binarySearch(result.rows, row) : row;
        const [found] = await rowsPage(index, [row], n);
        json(res, 200, { n, row: found! } satisfies PagedFound);
        return true;
      }
      case 'bars': {
        const result = await view(queryFromParams(params));
        const from = Number(params.get('from') ?? Number.NEGATIVE_INFINITY);
        const to = Number(params.get('to') ?? Number.POSITIVE_INFINITY);
        const ordinals = barsOf(index, result.rows, from, to, index.last);
        const start = count(params.get('start'), 0, ordinals.length);
        const n = count(params.get('count'), 200, MAX_PAGE);
        json(res, 200, {
          total: ordinals.length,
          start,
          bars: await barsPage(index, [...ordinals.subarray(start, start + n)]),
        } satisfies PagedBarsPage);
        return true;
      }
      case 'errors': {
        const result = await view(queryFromParams(params));
        const key = params.get('key');
        const row = key ? findRow(index, key) : -1;
        const n = row < 0 ? -1 : result.rows ? binarySearch(result.rows, row) : row;
        const asked = Number(params.get('step') ?? 0);
        const step = asked === 1 || asked === -1 ? asked : 0;
        const answer = errorStep(index, failuresIn(result), row, n, step, (at) =>
          index.rowKey(rowAt(result, at)),
        );
        json(res, 200, answer satisfies PagedErrors);
        return true;
      }
      case 'density': {
        const result = await view(queryFromParams(params));
        const buckets = count(params.get('buckets'), 240, 2000);
        json(res, 200, { counts: density(index, result, buckets) } satisfies PagedDensity);
        return true;
      }
      case 'stats':
        json(res, 200, {
          stats: index.stats.result(),
          toolTimes: index.figures.toolTimes(index.servers.names.length > 2),
          samples: index.figures.samples(),
        } satisfies PagedStats);
        return true;
      case 'export':
        await exportJsonl(index, await view(queryFromParams(params)), res);
        return true;
      default:
        return false;
    }
  };
}

/** What the viewer shows before any page: the trace, and how far the index got. */
function info(index: TraceIndex): PagedInfo {
  return {
    name: index.name,
    format: index.format,
    // TraceIndex.open sets it before the index is served.
    meta: index.meta!,
    files: index.files.map((f) => ({ path: f.path, size: f.offsets.size })),
    rows: index.rowCount,
    requests: index.exchangeCount,
    done: index.done,
    failure: index.failure ?? null,
    progress: index.progress,
    start: index.start ?? null,
    end: Number.isFinite(index.last) ? index.last : null,
    maxLatency: index.maxLatency,
    tools: index.tools.names.slice(1).sort(),
    methods: index.methods.names.slice(1).sort(),
    servers: index.servers.names.slice(1).sort(),
    calls: index.figures.calls,
    diagnostics: index.diagnostics,
  };
}

/** A row by its viewer key (`0.<seq>[.<item>]`, `0.end`): seqs only grow, so a binary search finds it. */
export function findRow(index: TraceIndex, key: string): number {
  if (key === '0.end') {
    const last = index.rowCount - 1;
    return last >= 0 && index.kindOf(last) === 'end' ? last : -1;
  }
  const match = /^0\.(\d+)(?:\.(\d+))?$/.exec(key);
  if (!match) return -1;
  const seq = Number(match[1]);
  let lo = 0;
  let hi = index.rowCount - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = index.rowSeq.get(mid);
    if (Number.isNaN(at) || at >= seq) hi = mid - 1;
    else lo = mid + 1;
  }
  const item = match[2] === undefined ? -1 : Number(match[2]);
  for (let row = lo; row < index.rowCount && index.rowSeq.get(row) === seq; row++)
    if (index.rowItem.get(row) === item) return row;
  return -1;
}

/** The place of `row` in a sorted list of rows, or -1. */
function binarySearch(rows: Int32Array, row: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid] === row) return mid;
    if (rows[mid]! < row) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function density(index: TraceIndex, result: FilterResult, buckets: number): number[] {
  const from = index.start ?? 0;
  const to = Math.max(from + 1, Number.isFinite(index.last) ? index.last : from + 1);
  const delta = new Array<number>(buckets + 1).fill(0);
  const span = to - from;
  for (const ordinal of barsOf(index, result.rows, from, to, index.last)) {
    const start = index.xStart.get(ordinal);
    const answered = index.xEnd.get(ordinal);
    const end = Number.isNaN(answered) ? index.last : answered;
    const a = Math.max(0, Math.min(buckets - 1, Math.floor(((start - from) / span) * buckets)));
    const b = Math.max(a, Math.min(buckets - 1, Math.floor(((end - from) / span) * buckets)));
    delta[a]! += 1;
    delta[b + 1]! -= 1;
  }
  const counts: number[] = [];
  let running = 0;
  for (let i = 0; i < buckets; i++) {
    running += delta[i]!;
    counts.push(running);
  }
  return counts;
}

/** The view as tapedeck JSONL, streamed: the meta line, each row's line once, the end line without its counts. */
async function exportJsonl(index: TraceIndex, result: FilterResult, res: ServerResponse): Promise<void> {
  const stem = index.name.replace(/\.(jsonl|ndjson|json)$/i, '') || 'trace';
  res.writeHead(200, {
    'content-type': 'application/x-ndjson; charset=utf-8',
    'content-disposition': `attachment; filename="${stem.replace(/[^\w.-]+/g, '_')}-filtered.jsonl"`,
  });
  const meta: MetaLine = { ...index.meta!, segment: 0 };
  if (index.meta?.segment === undefined) delete meta.segment;
  meta.producer ??= { ...PRODUCER };
  res.write(encodeLine(meta));
  const total = result.rows?.length ?? index.rowCount;
  let last = '';
  let endRow = -1;
  for (let from = 0; from < total; from += MAX_PAGE) {
    const byFile = new Map<number, number[]>();
    for (let n = from; n < Math.min(total, from + MAX_PAGE); n++) {
      const row = result.rows ? result.rows[n]! : n;
      if (index.kindOf(row) === 'end') {
        endRow = row;
        continue;
      }
      const file = index.rowFile.get(row);
      const line = index.rowLine.get(row);
      // Items of one batch are rows of one line: written once.
      if (`${file}:${line}` === last) continue;
      last = `${file}:${line}`;
      const list = byFile.get(file);
      if (list) list.push(line);
      else byFile.set(file, [line]);
    }
    for (const [file, lines] of byFile) {
      const indexed = index.files[file]!;
      const ranges = [];
      for (const n of lines) ranges.push((await indexed.offsets.line(n)) ?? { start: 0, end: 0 });
      const texts = await readRanges(indexed.file, ranges);
      if (!res.write(`${texts.join('\n')}\n`)) await new Promise((resume) => res.once('drain', resume));
    }
  }
  const final = index.rowCount - 1;
  if (endRow < 0 && final >= 0 && index.kindOf(final) === 'end') endRow = final;
  if (endRow >= 0) {
    const indexed = index.files[index.rowFile.get(endRow)]!;
    const range = await indexed.offsets.line(index.rowLine.get(endRow));
    const [text] = range ? await readRanges(indexed.file, [range]) : [''];
    try {
      const { counts: _counts, ...end } = JSON.parse(text!) as EndLine;
      res.write(encodeLine(end as EndLine));
    } catch {
      // An end line the reader made up (none in the file) is left out.
    }
  }
  res.end();
}
