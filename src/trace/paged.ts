import type { Attribution, ExchangeOutcome } from './exchange.js';
import type { TraceDiagnostic } from './reader.js';
import type { TraceStats } from './stats.js';
import type { MetaLine } from './types.js';

/**
 * What `tapedeck view` answers under `api/paged/…` for a trace it serves a page at a time, and what the web
 * viewer reads: the trace and how far its index got, pages of rows with their lines' text, pages of the
 * waterfall's bars, and the figures of the Tools view. The server writes these shapes and the viewer reads them
 * from this one definition, so a field changed on one side is a type error on the other until both agree. Plain
 * JSON: absent values are null, never undefined (JSON.stringify would drop the field).
 */

/** What a row is: a JSON-RPC item of a message line (request, response, notification, …) or another line. */
export type PagedRowKind =
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

/** `info`: the trace, and how far the server's index got (it grows while the file is read). */
export interface PagedInfo {
  name: string;
  format: string;
  meta: MetaLine;
  files: { path: string; size: number }[];
  rows: number;
  requests: number;
  done: boolean;
  /** Why indexing stopped early, or null. */
  failure: string | null;
  /** 0..1 while indexing. */
  progress: number;
  start: number | null;
  end: number | null;
  maxLatency: number;
  tools: string[];
  methods: string[];
  servers: string[];
  /** Client tools/call requests. */
  calls: number;
  diagnostics: TraceDiagnostic[];
}

/** The last progress notification a request was sent, and how many it was sent. */
export interface PagedProgress {
  progress: number;
  total: number | null;
  message: string | null;
  count: number;
}

/** A message that belongs to a request. */
export interface PagedChild {
  key: string;
  kind: 'notification' | 'exchange';
  method: string;
  via: Attribution | null;
  time: number | null;
  /** A server request's own line, so its id shows (only the first few children's are sent). */
  line: string | null;
  item: number | null;
  /** A server request's outcome; null for a notification. */
  outcome: ExchangeOutcome | null;
}

/** A request as a page carries it: its line and its answer's, and what the server's pairing knows. */
export interface PagedExchange {
  ordinal: number;
  key: string;
  /** The request's line; null when the row carrying this is the request row itself (its `line`). */
  line: string | null;
  lineNo: number;
  file: string;
  item: number | null;
  time: number | null;
  dir: 'in' | 'out';
  responseKey: string | null;
  /** The answer's line; null without an answer, or when the row carrying this is the answer row itself. */
  response: string | null;
  responseLineNo: number | null;
  responseFile: string | null;
  responseItem: number | null;
  responseTime: number | null;
  latency: number | null;
  outcome: ExchangeOutcome;
  cancelled: boolean;
  depth: number;
  via: Attribution | null;
  /** The request it belongs to, when it is a server's request made for a call. */
  parent: PagedExchange | null;
  children: PagedChild[];
  /** How many children it has (the list is cut short on a request with very many). */
  childCount: number;
  progress: PagedProgress | null;
  /** Sent whole by a row before on the same page: its lines and relations are not repeated. */
  seen?: true;
}

/** One row of the viewer's list, with its line's text. */
export interface PagedRow {
  /** Its place in the view the page was asked from. */
  n: number;
  /** The viewer's row key (`0.<seq>[.<item>]`, `0.end`), the same as when the trace is loaded whole. */
  key: string;
  kind: PagedRowKind;
  file: string;
  lineNo: number;
  item: number | null;
  time: number | null;
  dir: 'in' | 'out' | null;
  depth: number;
  error: boolean;
  via: Attribution | null;
  line: string;
  /** Request and response rows: their exchange; notifications: the request they belong to. */
  exchange: PagedExchange | null;
}

/** `rows`: a page of rows of a (filtered) view, and how many rows the view holds. */
export interface PagedRowsPage {
  /** Rows in the view; with `counted` false, only the rows found so far (a page of 0 rows waits for them all). */
  total: number;
  /**
   * False when the page was found before the view was counted (asked for with early=1: a search's first page
   * answered while the whole file is still being searched); absent or true when `total` is the view's.
   */
  counted?: boolean;
  done: boolean;
  /** Why the view's filter could not be applied (a bad regular expression), or null. */
  error: string | null;
  rows: PagedRow[];
}

/** `find`: one row by its key, and its place in the view (-1 when the view filters it out). */
export interface PagedFound {
  n: number;
  row: PagedRow;
}

/**
 * `errors`: the view's failures counted per failing call (a failed request and its answer are one, as a stray
 * answer, an unreadable item or a recorder's warning is one each), where the row named stands among them, and
 * the first row of the next (or previous) failure when a step was asked for.
 */
export interface PagedErrors {
  count: number;
  /** 1-based place among the failures of the one the named row (or, after a step, the target) belongs to. */
  at: number | null;
  /** The first row of the failure stepped to: its place in the view and its key; null without a step. */
  target: { n: number; key: string } | null;
}

/** A mark on a waterfall bar: [time, kind, guessed]. */
export type PagedMark = [number, 'progress' | 'log' | 'cancel' | 'other', boolean];

/** A request as a waterfall bar. */
export interface PagedBar {
  key: string;
  label: string;
  dir: 'in' | 'out';
  depth: number;
  start: number;
  end: number | null;
  outcome: ExchangeOutcome;
  cancelled: boolean;
  latency: number | null;
  /** Tied to its parent by a guess (only the open request). */
  guess: boolean;
  /** Its notifications, evenly picked when there are many. */
  marks: PagedMark[];
  progress: PagedProgress | null;
}

/** `bars`: a page of the bars that overlap a span of time, and how many do. */
export interface PagedBarsPage {
  total: number;
  start: number;
  bars: PagedBar[];
}

/** `density`: requests in flight per slice of the whole trace. */
export interface PagedDensity {
  counts: number[];
}

/** Where one tool's time went. */
export interface PagedToolTime {
  name: string;
  /** The `server` of a multi-server trace, else null. */
  server: string | null;
  calls: number;
  /** Calls with an answer (the only ones with a latency). */
  answered: number;
  totalMs: number;
  meanMs: number | null;
  p95Ms: number | null;
  /** JSON-RPC errors and results with `isError`. */
  errors: number;
  /** totalMs / the sum of every tool's totalMs (0..1). */
  share: number;
}

/** Latencies of one method (or tool) for the charts: a few hundred, evenly picked, the slowest kept. */
export interface PagedSample {
  dir: 'in' | 'out';
  method: string;
  tool: string | null;
  server: string | null;
  /** How many latencies there were before picking. */
  count: number;
  values: number[];
  /** The picked latencies of failed requests. */
  errors: number[];
}

/** `stats`: `tapedeck stats` figures, where the tool time went, and latency samples for the charts. */
export interface PagedStats {
  stats: TraceStats;
  toolTimes: PagedToolTime[];
  samples: PagedSample[];
}
