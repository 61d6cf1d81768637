import { requestLabel } from '../../trace/describe.js';
import { messageItems, type RpcRequest } from '../../trace/jsonrpc.js';
import type {
  PagedBar,
  PagedChild,
  PagedExchange,
  PagedMark,
  PagedProgress,
  PagedRow,
} from '../../trace/paged.js';
import type { Json } from '../../trace/types.js';
import { readRanges } from './line-offsets.js';
import { OUTCOMES, type RequestChildren, type TraceIndex, VIAS } from './trace-index.js';

/**
 * Pages of a paged trace, as the viewer asks for them: rows with their line's text and what pairing knew about
 * them (the viewer parses the text and builds the same rows and exchanges it builds from a whole file), and the
 * waterfall's bars. Lines are read back from the file by position, a page at a time. The shapes are
 * trace/paged.ts's, which the viewer reads.
 */

/** Children listed per request at most (the count says how many there are). */
const MAX_CHILDREN = 200;
/** Server requests made for a call whose line is read for the list. */
const MAX_CHILD_LINES = 50;
const MAX_MARKS = 60;

const num = (value: number) => (Number.isNaN(value) ? null : value);
const dirOf = (code: number) => (code === 1 ? 'in' : code === 2 ? 'out' : null);

/** Reads the lines of many rows at once: file by file, each line once. */
class LineReader {
  private readonly wanted = new Map<number, Set<number>>();
  private readonly texts = new Map<string, string>();

  constructor(private readonly index: TraceIndex) {}

  want(row: number): void {
    if (row < 0) return;
    const file = this.index.rowFile.get(row);
    let lines = this.wanted.get(file);
    if (!lines) {
      lines = new Set();
      this.wanted.set(file, lines);
    }
    lines.add(this.index.rowLine.get(row));
  }

  async read(): Promise<void> {
    for (const [file, lines] of this.wanted) {
      const indexed = this.index.files[file]!;
      const numbers = [...lines].filter((n) => n > 0).sort((a, b) => a - b);
      const ranges = [];
      for (const n of numbers) ranges.push((await indexed.offsets.line(n)) ?? { start: 0, end: 0 });
      const texts = await readRanges(indexed.file, ranges);
      numbers.forEach((n, i) => {
        this.texts.set(`${file}:${n}`, texts[i]!);
      });
    }
  }

  text(row: number): string {
    if (row < 0) return '';
    return this.texts.get(`${this.index.rowFile.get(row)}:${this.index.rowLine.get(row)}`) ?? '';
  }
}

/** A request's last progress, as a page carries it. */
function progressOf(kids: RequestChildren | undefined): PagedProgress | null {
  const last = kids?.progress;
  if (!last) return null;
  return {
    progress: last.progress,
    total: last.total ?? null,
    message: last.message ?? null,
    count: last.count,
  };
}

function markKind(method: string | undefined): PagedMark[1] {
  if (method === 'notifications/progress') return 'progress';
  if (method === 'notifications/message') return 'log';
  if (method === 'notifications/cancelled') return 'cancel';
  return 'other';
}

/**
 * The rows at `rows` (row numbers, in the order given), with their lines and exchanges.
 *
 * @example const page = await rowsPage(index, [0, 1, 2], 0);
 */
export async function rowsPage(
  index: TraceIndex,
  rows: readonly number[],
  first: number,
): Promise<PagedRow[]> {
  const reader = new LineReader(index);
  const exchangesOf = (row: number): number[] => {
    const ordinal = index.rowExchange.get(row);
    if (ordinal < 0) return [];
    const parent = index.xParent.get(ordinal);
    return parent >= 0 ? [ordinal, parent] : [ordinal];
  };
  for (const row of rows) {
    reader.want(row);
    for (const ordinal of exchangesOf(row)) {
      reader.want(index.xRequestRow.get(ordinal));
      reader.want(index.xResponseRow.get(ordinal));
      let lines = 0;
      for (const child of index.children.get(ordinal)?.rows.slice(0, MAX_CHILDREN) ?? []) {
        if (index.kindOf(child) === 'request' && lines++ < MAX_CHILD_LINES) reader.want(child);
      }
    }
  }
  await reader.read();
  const exchange = (ordinal: number, nested: boolean): PagedExchange => {
    const request = index.xRequestRow.get(ordinal);
    const response = index.xResponseRow.get(ordinal);
    const parent = index.xParent.get(ordinal);
    const kids = index.children.get(ordinal);
    let lines = 0;
    return {
      ordinal,
      key: index.rowKey(request),
      line: reader.text(request),
      lineNo: index.rowLine.get(request),
      file: index.files[index.rowFile.get(request)]!.path,
      item: itemOf(index, request),
      time: num(index.rowTime.get(request)),
      dir: index.xDir.get(ordinal) === 1 ? 'in' : 'out',
      responseKey: response >= 0 ? index.rowKey(response) : null,
      response: response >= 0 ? reader.text(response) : null,
      responseLineNo: response >= 0 ? index.rowLine.get(response) : null,
      responseFile: response >= 0 ? index.files[index.rowFile.get(response)]!.path : null,
      responseItem: response >= 0 ? itemOf(index, response) : null,
      responseTime: response >= 0 ? num(index.rowTime.get(response)) : null,
      latency: num(index.xLatency.get(ordinal)),
      outcome: OUTCOMES[index.xOutcome.get(ordinal)]!,
      cancelled: index.xCancelled.get(ordinal) === 1,
      depth: index.xDepth.get(ordinal),
      via: VIAS[index.xVia.get(ordinal)] || null,
      parent: parent >= 0 && !nested ? exchange(parent, true) : null,
      children: (kids?.rows.slice(0, MAX_CHILDREN) ?? []).map((child): PagedChild => {
        const isRequest = index.kindOf(child) === 'request';
        const childOrdinal = index.rowExchange.get(child);
        const withLine = isRequest && lines++ < MAX_CHILD_LINES;
        return {
          key: index.rowKey(child),
          kind: isRequest ? 'exchange' : 'notification',
          method: index.methods.name(index.rowMethod.get(child)) ?? '',
          via: VIAS[index.rowVia.get(child)] || null,
          time: num(index.rowTime.get(child)),
          line: withLine ? reader.text(child) : null,
          item: withLine ? itemOf(index, child) : null,
          outcome: isRequest ? OUTCOMES[index.xOutcome.get(childOrdinal)]! : null,
        };
      }),
      childCount: kids?.rows.length ?? 0,
      progress: progressOf(kids),
    };
  };
  const sent = new Set<number>();
  return rows.map((row, i) => {
    const ordinal = index.rowExchange.get(row);
    const own = ordinal >= 0 ? exchange(ordinal, false) : null;
    // A row's own line is sent once: the exchange points back to it.
    if (own && index.xRequestRow.get(ordinal) === row) own.line = null;
    if (own && index.xResponseRow.get(ordinal) === row) own.response = null;
    // An exchange already sent whole on this page (a request, then its answer) is named, not sent again.
    if (own && sent.has(ordinal)) {
      own.line = null;
      own.response = null;
      own.parent = null;
      own.children = [];
      own.seen = true;
    }
    if (own) sent.add(ordinal);
    return {
      n: first + i,
      key: index.rowKey(row),
      kind: index.kindOf(row),
      file: index.files[index.rowFile.get(row)]!.path,
      lineNo: index.rowLine.get(row),
      item: itemOf(index, row),
      time: num(index.rowTime.get(row)),
      dir: dirOf(index.rowDir.get(row)),
      depth: index.rowDepth.get(row),
      error: index.isError(row),
      via: VIAS[index.rowVia.get(row)] || null,
      line: reader.text(row),
      exchange: own,
    };
  });
}

function itemOf(index: TraceIndex, row: number): number | null {
  const item = index.rowItem.get(row);
  return item < 0 ? null : item;
}

/**
 * The waterfall's bars of some requests (by ordinal), with their labels read from their lines.
 *
 * @example const bars = await barsPage(index, [0, 1, 2]);
 */
export async function barsPage(index: TraceIndex, ordinals: readonly number[]): Promise<PagedBar[]> {
  const reader = new LineReader(index);
  for (const ordinal of ordinals) reader.want(index.xRequestRow.get(ordinal));
  await reader.read();
  return ordinals.map((ordinal) => {
    const row = index.xRequestRow.get(ordinal);
    const kids = index.children.get(ordinal);
    const marks: PagedMark[] = [];
    const notes = (kids?.rows ?? []).filter((child) => index.kindOf(child) === 'notification');
    const step = notes.length > MAX_MARKS ? (notes.length - 1) / (MAX_MARKS - 1) : 1;
    for (let i = 0; i < Math.min(notes.length, MAX_MARKS); i++) {
      const child = notes[Math.round(i * step)]!;
      const time = index.rowTime.get(child);
      if (Number.isNaN(time)) continue;
      marks.push([
        time,
        markKind(index.methods.name(index.rowMethod.get(child))),
        VIAS[index.rowVia.get(child)] === 'open-request',
      ]);
    }
    return {
      key: index.rowKey(row),
      label: labelOf(reader.text(row), index.rowItem.get(row)),
      dir: index.xDir.get(ordinal) === 1 ? 'in' : 'out',
      depth: index.xDepth.get(ordinal),
      start: index.xStart.get(ordinal),
      end: num(index.xEnd.get(ordinal)),
      outcome: OUTCOMES[index.xOutcome.get(ordinal)]!,
      cancelled: index.xCancelled.get(ordinal) === 1,
      latency: num(index.xLatency.get(ordinal)),
      guess: VIAS[index.xVia.get(ordinal)] === 'open-request',
      marks,
      progress: progressOf(kids),
    };
  });
}

/** A request's label (method and what it is about) from its line's text. */
function labelOf(text: string, item: number): string {
  try {
    const raw = (JSON.parse(text) as { raw?: Json }).raw ?? null;
    const items = messageItems(raw);
    const request = items[Math.max(0, item)];
    return request && request.kind === 'request' ? requestLabel(request as RpcRequest) : '?';
  } catch {
    return '?';
  }
}
