import {
  type Attribution,
  certainDepth,
  type Direction,
  type EndLine,
  type Exchange,
  type PagedRowKind,
  type PairEvent,
  type RecordLine,
  type RpcNotification,
  type RpcResponse,
} from 'mcp-tapedeck/trace';

/**
 * One row of the timeline: one JSON-RPC item (a batch gives one row per item) or one other trace line (text,
 * stderr, http, event, end). Rows keep a reference to the exchange pairing built, so a request row shows its
 * latency as soon as the response arrives, even on a live trace.
 */

/** What a row is; a paged trace's rows, built on the server, carry the same kinds. */
export type RowKind = PagedRowKind;

export interface Row {
  /** Stable across reloads of the same files: `<source>.<seq>[.<batch item>]`, `<source>.end` for the end line. */
  key: string;
  /** Index of the trace this row came from (several files can be open at once). */
  src: number;
  kind: RowKind;
  line: RecordLine | EndLine;
  file: string;
  /** 1-based line number in `file` (0 for lines an import synthesized). */
  lineNo: number;
  item: number | undefined;
  /** `line.t` in epoch ms. */
  time: number | undefined;
  dir: Direction | undefined;
  server: string | undefined;
  /** The request/response pair (request and response rows, and server→client requests). */
  exchange: Exchange | undefined;
  notification: RpcNotification | undefined;
  /** An orphan response: one that answers no open request. */
  response: RpcResponse | undefined;
  /** The request a notification belongs to, and how pairing tied it there. */
  parent: Exchange | undefined;
  via: Attribution | undefined;
  depth: number;
  /** Why an `invalid` row is invalid. */
  reason: string | undefined;
}

/** Where a trace line came from, as the importer reports it. */
export interface LineSource {
  file: string;
  lineNo: number;
}

function rowKey(src: number, line: RecordLine | EndLine, item: number | undefined): string {
  const seq = line.type === 'end' ? 'end' : String(line.seq ?? '?');
  return item === undefined ? `${src}.${seq}` : `${src}.${seq}.${item}`;
}

function parseTime(t: unknown): number | undefined {
  if (typeof t !== 'string') return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A row with every field set (one object shape for all rows keeps 100k of them fast). */
function newRow(
  src: number,
  kind: RowKind,
  line: RecordLine | EndLine,
  where: LineSource,
  item: number | undefined,
  time: number | undefined,
): Row {
  const dir = 'dir' in line && (line.dir === 'in' || line.dir === 'out') ? line.dir : undefined;
  return {
    key: rowKey(src, line, item),
    src,
    kind,
    line,
    file: where.file,
    lineNo: where.lineNo,
    item,
    time,
    dir,
    server: typeof line.server === 'string' ? line.server : undefined,
    exchange: undefined,
    notification: undefined,
    response: undefined,
    parent: undefined,
    via: undefined,
    depth: 0,
    reason: undefined,
  };
}

/**
 * The row a pairing event stands for, or undefined for events that are not rows of their own (meta lines, and
 * `unanswered`, which only changes an exchange that already has its request row).
 */
export function rowOf(src: number, ev: PairEvent, where: LineSource): Row | undefined {
  switch (ev.kind) {
    case 'unanswered':
      return undefined;
    case 'line': {
      const line = ev.line;
      if (line.type === 'meta' || line.type === undefined) return undefined;
      return newRow(src, line.type, line, where, undefined, parseTime(line.t));
    }
    default: {
      const { ref } = ev;
      const row = newRow(src, ev.kind, ref.line, where, ref.item, ref.time ?? parseTime(ref.line.t));
      switch (ev.kind) {
        case 'request':
        case 'response':
          row.exchange = ev.exchange;
          row.depth = certainDepth(ev.exchange.parent, ev.exchange.guessed);
          break;
        case 'notification':
          row.notification = ev.notification;
          row.parent = ev.parent;
          row.via = ev.via;
          row.depth = certainDepth(ev.parent, ev.guessed);
          break;
        case 'orphan':
          row.response = ev.response;
          break;
        case 'invalid':
          row.reason = ev.reason;
          break;
      }
      return row;
    }
  }
}

const WARNING_EVENTS = new Set(['write_error', 'truncated', 'dropped', 'redaction_error']);

/** Rows worth a red mark: failed exchanges, orphan responses, invalid items, the recorder's own troubles. */
export function isErrorRow(row: Row): boolean {
  switch (row.kind) {
    case 'request':
    case 'response': {
      const outcome = row.exchange!.outcome;
      return outcome === 'error' || outcome === 'tool_error';
    }
    case 'orphan':
    case 'invalid':
      return true;
    case 'event':
      return WARNING_EVENTS.has(String((row.line as { name?: unknown }).name));
    default:
      return false;
  }
}
