import type {
  Attribution,
  Direction,
  EndLine,
  Exchange,
  PairEvent,
  RecordLine,
  RpcNotification,
  RpcResponse,
} from '../../../src/trace/index.js';

/**
 * One row of the timeline: one JSON-RPC item (a batch gives one row per item) or one other trace line (text,
 * stderr, http, event, end). Rows keep a reference to the exchange pairing built, so a request row shows its
 * latency as soon as the response arrives, even on a live trace.
 */

export type RowKind =
  | 'request'
  | 'response'
  | 'notification'
  | 'orphan'
  | 'invalid'
  | 'text'
  | 'stderr'
  | 'http'
  | 'event'
  | 'end';

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

/**
 * The row a pairing event stands for, or undefined for events that are not rows of their own (meta lines, and
 * `unanswered`, which only changes an exchange that already has its request row).
 */
export function rowOf(src: number, ev: PairEvent, where: LineSource): Row | undefined {
  const base = {
    src,
    file: where.file,
    lineNo: where.lineNo,
    exchange: undefined,
    notification: undefined,
    response: undefined,
    parent: undefined,
    via: undefined,
    depth: 0,
    reason: undefined,
  };
  switch (ev.kind) {
    case 'unanswered':
      return undefined;
    case 'line': {
      const line = ev.line;
      if (line.type === 'meta' || line.type === undefined) return undefined;
      const dir = 'dir' in line && (line.dir === 'in' || line.dir === 'out') ? line.dir : undefined;
      return {
        ...base,
        key: rowKey(src, line, undefined),
        kind: line.type,
        line,
        item: undefined,
        time: parseTime(line.t),
        dir,
        server: typeof line.server === 'string' ? line.server : undefined,
      };
    }
    default: {
      const { ref } = ev;
      const common = {
        ...base,
        key: rowKey(src, ref.line, ref.item),
        line: ref.line,
        item: ref.item,
        time: ref.time ?? parseTime(ref.line.t),
        dir: ref.line.dir,
        server: typeof ref.line.server === 'string' ? ref.line.server : undefined,
      };
      switch (ev.kind) {
        case 'request':
        case 'response':
          return { ...common, kind: ev.kind, exchange: ev.exchange, depth: ev.exchange.depth };
        case 'notification':
          return {
            ...common,
            kind: 'notification',
            notification: ev.notification,
            parent: ev.parent,
            via: ev.via,
            depth: ev.depth,
          };
        case 'orphan':
          return { ...common, kind: 'orphan', response: ev.response };
        case 'invalid':
          return { ...common, kind: 'invalid', reason: ev.reason };
      }
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
