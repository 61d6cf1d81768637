import { stat } from 'node:fs/promises';
import {
  type Attribution,
  certainDepth,
  type ExchangeOutcome,
  type PairEvent,
} from '../../trace/exchange.js';
import { openTrace } from '../../trace/io.js';
import { toolName } from '../../trace/jsonrpc.js';
import type { PagedRowKind } from '../../trace/paged.js';
import { Pairer } from '../../trace/pairing.js';
import type { TraceDiagnostic } from '../../trace/reader.js';
import { StatsCollector } from '../../trace/stats.js';
import { parseTime } from '../../trace/time.js';
import type { EndLine, MetaLine, RecordLine } from '../../trace/types.js';
import { Column, StringTable } from './columns.js';
import { Figures } from './figures.js';
import { LineOffsets } from './line-offsets.js';

/**
 * The server's index of a trace too big for the browser (`tapedeck view`, paged): one pass of the trace reader
 * and pairing, the facts of every row and every request kept in columns, the lines themselves left in the file
 * and read back by position when a page of rows is asked for. Rows are the viewer's rows (one per JSON-RPC item
 * or other line, meta lines left out) with the same keys, so a link made on a paged trace opens the same row
 * when the trace is loaded whole. The index grows while the file is read; pages of what is indexed are served
 * from the first moment.
 */

/** Each row kind's number in the kind column: every kind the wire names, once. */
const KIND: Readonly<Record<PagedRowKind, number>> = {
  request: 0,
  response: 1,
  notification: 2,
  orphan: 3,
  invalid: 4,
  text: 5,
  stderr: 6,
  http: 7,
  event: 8,
  end: 9,
};
const ROW_KINDS: PagedRowKind[] = [];
for (const [kind, n] of Object.entries(KIND)) ROW_KINDS[n] = kind as PagedRowKind;

export const OUTCOMES = [
  'open',
  'ok',
  'error',
  'tool_error',
  'input_required',
  'unanswered',
] as const satisfies readonly ExchangeOutcome[];
export const VIAS = [
  '',
  'progressToken',
  'subscriptionId',
  'requestId',
  'stream',
  'open-request',
] as const satisfies readonly ('' | Attribution)[];
const viaId = (via: Attribution | undefined) => (via === undefined ? 0 : VIAS.indexOf(via));

/** Index this long, then let the server answer what waits (pages of rows while a big trace is indexed). */
const SLICE_MS = 10;

/**
 * Waits while `busy` says to: it answers how much longer a wait may last from now (0: no wait), and the wait ends
 * when it says 0 or the time it allowed at the start has passed.
 *
 * @example await stepAside(() => (answering > 0 ? 50 : 0));
 */
export async function stepAside(busy: () => number): Promise<void> {
  const until = Date.now() + busy();
  while (busy() > 0 && Date.now() < until) await new Promise((resume) => setTimeout(resume, 2));
}

/** Rows the viewer marks red that are not failed exchanges (those are known from the exchange). */
const FLAG_ERROR = 1;
const WARNING_EVENTS = new Set(['write_error', 'truncated', 'dropped', 'redaction_error']);

/** A file of the trace: its name for the viewer, where it is, and where its lines start. */
export interface IndexedFile {
  path: string;
  file: string;
  offsets: LineOffsets;
}

/** What belongs to a request: its children's rows, and the last progress it was sent. */
export interface RequestChildren {
  rows: number[];
  progress:
    | { progress: number; total: number | undefined; message: string | undefined; count: number }
    | undefined;
}

export class TraceIndex {
  // One entry per row.
  readonly rowFile = new Column(Uint8Array);
  readonly rowLine = new Column(Uint32Array);
  /** Position in a batch, -1 for a line that is one message. */
  readonly rowItem = new Column(Int16Array);
  /** The line's seq (NaN for the end line). */
  readonly rowSeq = new Column(Float64Array);
  readonly rowTime = new Column(Float64Array);
  readonly rowKind = new Column(Uint8Array);
  /** 0 none, 1 in, 2 out. */
  readonly rowDir = new Column(Uint8Array);
  readonly rowDepth = new Column(Uint8Array);
  /** The exchange of a request or response row; the parent exchange of a notification; else -1. */
  readonly rowExchange = new Column(Int32Array);
  readonly rowVia = new Column(Uint8Array);
  readonly rowMethod = new Column(Uint32Array);
  /** The tool of the top-level request the row is part of (for the tool filter). */
  readonly rowTool = new Column(Uint32Array);
  readonly rowServer = new Column(Uint32Array);
  readonly rowFlags = new Column(Uint8Array);
  // One entry per request, by ordinal.
  readonly xRequestRow = new Column(Int32Array);
  readonly xResponseRow = new Column(Int32Array);
  readonly xStart = new Column(Float64Array);
  readonly xEnd = new Column(Float64Array);
  readonly xLatency = new Column(Float64Array);
  readonly xOutcome = new Column(Uint8Array);
  readonly xCancelled = new Column(Uint8Array);
  readonly xDir = new Column(Uint8Array);
  readonly xDepth = new Column(Uint8Array);
  readonly xParent = new Column(Int32Array);
  readonly xVia = new Column(Uint8Array);
  readonly children = new Map<number, RequestChildren>();
  readonly methods = new StringTable();
  readonly tools = new StringTable();
  readonly servers = new StringTable();
  /** Per tool and method: latencies and failures, for the Tools view. */
  readonly figures = new Figures();
  readonly stats = new StatsCollector();
  readonly diagnostics: TraceDiagnostic[] = [];
  files: IndexedFile[] = [];
  meta: MetaLine | undefined;
  format = '';
  name = '';
  start: number | undefined;
  last = Number.NEGATIVE_INFINITY;
  maxLatency = 0;
  /** The file and line the index has reached (for progress). */
  position = { file: 0, lineNo: 0 };
  done = false;
  failure: string | undefined;
  /** Changes whenever rows are added or the index finishes: caches of filtered views are keyed by it. */
  version = 0;
  private readonly fileIndex = new Map<string, number>();
  private readonly listeners = new Set<() => void>();

  /**
   * Starts indexing `path` (its rotated segments found and stitched by the trace reader). `files` maps each
   * file on disk to the name the viewer knows it by. Resolves once the trace is open; the rows keep coming.
   *
   * @example const index = await TraceIndex.open(files[0].file, files); await index.finished;
   */
  static async open(path: string, files: readonly { file: string; path: string }[]): Promise<TraceIndex> {
    const index = new TraceIndex();
    const trace = await openTrace(path, { onDiagnostic: (d) => index.diagnostics.push(d) });
    index.format = trace.format;
    index.meta = trace.meta;
    const started = Date.parse(trace.meta.startedAt);
    if (!Number.isNaN(started)) index.start = started;
    for (const segment of trace.segments) {
      const size = (await stat(segment.file)).size;
      const path = files.find((f) => f.file === segment.file)?.path ?? segment.file;
      index.fileIndex.set(segment.file, index.files.length);
      const offsets = new LineOffsets(segment.file, size, () => index.busy());
      index.files.push({ path, file: segment.file, offsets });
    }
    index.name = (index.files[index.files.length - 1]?.path ?? path).split('/').pop() ?? path;
    index.finished = index.read(trace).catch((err: unknown) => {
      index.failure = err instanceof Error ? err.message : String(err);
      index.finish();
    });
    return index;
  }

  /**
   * How long indexing may wait now, in ms (0: not at all), set by the view server: a moment while it answers a
   * request, longer while a page is drawing its first screen. On a busy machine the browser then has the CPU to
   * itself, so the first screen of a big trace does not wait for the index to be built.
   */
  busy: () => number = () => 0;

  /** Settles once the whole trace is indexed (or reading failed: see `failure`). */
  finished: Promise<void> = Promise.resolve();

  /** How far the index got through the trace's bytes, 0..1. */
  get progress(): number {
    if (this.done) return 1;
    const total = this.files.reduce((n, f) => n + f.offsets.size, 0);
    let at = 0;
    for (let i = 0; i < this.position.file; i++) at += this.files[i]!.offsets.size;
    at += this.files[this.position.file]?.offsets.startOf(this.position.lineNo) ?? 0;
    return total === 0 ? 0 : Math.min(0.99, at / total);
  }

  get rowCount(): number {
    return this.rowKind.length;
  }

  get exchangeCount(): number {
    return this.xRequestRow.length;
  }

  /** Called (at most every batch) when rows were added or indexing finished. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.version++;
    for (const listener of this.listeners) listener();
  }

  private async read(trace: Awaited<ReturnType<typeof openTrace>>): Promise<void> {
    const pairer = new Pairer({ children: 'none' });
    let segment = trace.segments[0]?.segment ?? 0;
    const feed = (line: MetaLine | RecordLine | EndLine, file: number, lineNo: number) =>
      pairer.pushEach(line, lineNo, (event) => this.add(event, file, lineNo));
    if (this.meta) feed(this.meta, 0, 0);
    let slice = Date.now();
    for await (const batch of trace.batches()) {
      for (const entry of batch) {
        if (entry.segment !== segment) {
          segment = entry.segment;
          const meta = trace.segments.find((s) => s.segment === segment)?.meta;
          if (meta) feed(meta, this.fileIndex.get(entry.file) ?? 0, 0);
        }
        const file = this.fileIndex.get(entry.file) ?? 0;
        feed(entry.line, file, entry.lineNo);
        this.position = { file, lineNo: entry.lineNo };
      }
      this.files[this.position.file]?.offsets.reached(this.position.lineNo);
      this.changed();
      // Reading is quicker than the answers waiting on it: every so often they get their turn.
      if (Date.now() - slice > SLICE_MS) {
        await new Promise((resume) => setImmediate(resume));
        // A person waiting for a page comes first: the rest of the index can wait a moment.
        await stepAside(this.busy);
        slice = Date.now();
      }
    }
    for (const event of pairer.finish()) this.add(event, 0, 0);
    this.finish();
  }

  private finish(): void {
    this.done = true;
    this.changed();
  }

  private add(ev: PairEvent, file: number, lineNo: number): void {
    this.stats.add(ev);
    switch (ev.kind) {
      case 'unanswered':
        this.xOutcome.set(ev.exchange.ordinal, OUTCOMES.indexOf('unanswered'));
        this.xCancelled.set(ev.exchange.ordinal, ev.exchange.cancelled ? 1 : 0);
        this.figures.add(ev.exchange);
        return;
      case 'line': {
        const line = ev.line;
        if (line.type === 'meta' || line.type === undefined) return;
        const time = parseTime(line.t);
        const flags = line.type === 'event' && WARNING_EVENTS.has(String(line.name)) ? FLAG_ERROR : 0;
        const dir = 'dir' in line && (line.dir === 'in' || line.dir === 'out') ? line.dir : undefined;
        this.row(line.type, line, file, lineNo, -1, time, dir, { flags });
        return;
      }
      default:
        break;
    }
    const { ref } = ev;
    const time = ref.time ?? parseTime(ref.line.t);
    const item = ref.item ?? -1;
    const server = this.servers.id(typeof ref.line.server === 'string' ? ref.line.server : undefined);
    switch (ev.kind) {
      case 'request': {
        const x = ev.exchange;
        const tool = x.dir === 'in' ? this.tools.id(toolName(x.request)) : 0;
        const rootTool = x.parent ? this.rowTool.get(this.xRequestRow.get(x.parent.ordinal)) : tool;
        const row = this.row('request', ref.line, file, lineNo, item, time, x.dir, {
          depth: certainDepth(x.parent, x.guessed),
          exchange: x.ordinal,
          via: viaId(x.via),
          method: this.methods.id(x.method),
          tool: rootTool,
          server,
        });
        this.xRequestRow.push(row);
        this.xResponseRow.push(-1);
        this.xStart.push(time ?? Number.NaN);
        this.xEnd.push(Number.NaN);
        this.xLatency.push(Number.NaN);
        this.xOutcome.push(OUTCOMES.indexOf('open'));
        this.xCancelled.push(0);
        this.xDir.push(x.dir === 'in' ? 1 : 2);
        this.xDepth.push(x.depth);
        this.xParent.push(x.parent?.ordinal ?? -1);
        this.xVia.push(viaId(x.via));
        if (x.parent) this.childOf(x.parent.ordinal).rows.push(row);
        return;
      }
      case 'response': {
        const x = ev.exchange;
        const request = this.xRequestRow.get(x.ordinal);
        const row = this.row('response', ref.line, file, lineNo, item, time, ref.line.dir, {
          depth: certainDepth(x.parent, x.guessed),
          exchange: x.ordinal,
          method: this.rowMethod.get(request),
          tool: this.rowTool.get(request),
          server,
        });
        this.xResponseRow.set(x.ordinal, row);
        this.xEnd.set(x.ordinal, time ?? Number.NaN);
        if (x.latencyMs !== undefined) {
          this.xLatency.set(x.ordinal, x.latencyMs);
          if (x.latencyMs > this.maxLatency) this.maxLatency = x.latencyMs;
        }
        this.xOutcome.set(x.ordinal, OUTCOMES.indexOf(x.outcome));
        this.xCancelled.set(x.ordinal, x.cancelled ? 1 : 0);
        this.figures.add(x);
        return;
      }
      case 'notification': {
        const parent = ev.parent?.ordinal ?? -1;
        const row = this.row('notification', ref.line, file, lineNo, item, time, ref.line.dir, {
          depth: certainDepth(ev.parent, ev.guessed),
          exchange: parent,
          via: viaId(ev.via),
          method: this.methods.id(ev.notification.method),
          tool: parent >= 0 ? this.rowTool.get(this.xRequestRow.get(parent)) : 0,
          server,
        });
        if (parent < 0) return;
        if (ev.via === 'requestId') this.xCancelled.set(parent, 1);
        const children = this.childOf(parent);
        children.rows.push(row);
        const params = ev.notification.params;
        if (ev.notification.method === 'notifications/progress' && typeof params?.progress === 'number') {
          children.progress = {
            progress: params.progress,
            total: typeof params.total === 'number' ? params.total : undefined,
            message: typeof params.message === 'string' ? params.message : children.progress?.message,
            count: (children.progress?.count ?? 0) + 1,
          };
        }
        return;
      }
      case 'orphan':
      case 'invalid':
        this.row(ev.kind, ref.line, file, lineNo, item, time, ref.line.dir, { flags: FLAG_ERROR, server });
        return;
    }
  }

  private childOf(ordinal: number): RequestChildren {
    let children = this.children.get(ordinal);
    if (!children) {
      children = { rows: [], progress: undefined };
      this.children.set(ordinal, children);
    }
    return children;
  }

  private row(
    kind: PagedRowKind,
    line: RecordLine | EndLine,
    file: number,
    lineNo: number,
    item: number,
    time: number | undefined,
    dir: 'in' | 'out' | undefined,
    facts: {
      depth?: number;
      exchange?: number;
      via?: number;
      method?: number;
      tool?: number;
      server?: number;
      flags?: number;
    },
  ): number {
    if (time !== undefined) {
      if (this.start === undefined) this.start = time;
      if (time > this.last) this.last = time;
    }
    this.rowFile.push(file);
    this.rowLine.push(lineNo);
    this.rowItem.push(item);
    this.rowSeq.push(line.type === 'end' ? Number.NaN : Number(line.seq ?? Number.NaN));
    this.rowTime.push(time ?? Number.NaN);
    this.rowKind.push(KIND[kind]);
    this.rowDir.push(dir === 'in' ? 1 : dir === 'out' ? 2 : 0);
    this.rowDepth.push(Math.min(255, facts.depth ?? 0));
    this.rowExchange.push(facts.exchange ?? -1);
    this.rowVia.push(facts.via ?? 0);
    this.rowMethod.push(facts.method ?? 0);
    this.rowTool.push(facts.tool ?? 0);
    this.rowServer.push(facts.server ?? 0);
    return this.rowFlags.push(facts.flags ?? 0);
  }

  /** The viewer's key of a row: `0.<seq>[.<item>]`, `0.end` for the end line. */
  rowKey(row: number): string {
    const seq = this.rowSeq.get(row);
    if (this.rowKind.get(row) === KIND.end) return '0.end';
    const base = `0.${Number.isNaN(seq) ? '?' : seq}`;
    const item = this.rowItem.get(row);
    return item < 0 ? base : `${base}.${item}`;
  }

  kindOf(row: number): PagedRowKind {
    return ROW_KINDS[this.rowKind.get(row)]!;
  }

  /** Whether the viewer marks the row red: failed exchanges, answers to nothing, invalid items, recorder troubles. */
  isError(row: number): boolean {
    if (this.rowFlags.get(row) & FLAG_ERROR) return true;
    const kind = this.rowKind.get(row);
    if (kind !== KIND.request && kind !== KIND.response) return false;
    const outcome = OUTCOMES[this.xOutcome.get(this.rowExchange.get(row))];
    return outcome === 'error' || outcome === 'tool_error';
  }
}
