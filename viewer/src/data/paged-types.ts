import type { ExchangeOutcome, MetaLine, TraceDiagnostic, TraceStats } from 'tapedeck/trace';
import type { ToolTime } from './insights.js';

/**
 * What `tapedeck view` answers for a trace it pages (src/cli/paged/routes.ts and pages.ts write these shapes; a
 * contract test feeds the server's answers to this side): the trace and how far its index got, pages of rows
 * with their lines' text, pages of the waterfall's bars, and the figures of the Tools view.
 */

export interface PagedInfo {
  name: string;
  format: string;
  meta: MetaLine;
  files: { path: string; size: number }[];
  rows: number;
  requests: number;
  done: boolean;
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

export interface PagedChild {
  key: string;
  kind: 'notification' | 'exchange';
  method: string;
  via: string | null;
  time: number | null;
  line: string | null;
  item: number | null;
  outcome: string | null;
}

export interface PagedProgress {
  progress: number;
  total: number | null;
  message: string | null;
  count: number;
}

export interface PagedExchange {
  ordinal: number;
  key: string;
  /** null: the carrying row's own line. */
  line: string | null;
  lineNo: number;
  file: string;
  item: number | null;
  time: number | null;
  dir: 'in' | 'out';
  responseKey: string | null;
  /** null: no answer, or the carrying row's own line (responseKey says which). */
  response: string | null;
  responseLineNo: number | null;
  responseFile: string | null;
  responseItem: number | null;
  responseTime: number | null;
  latency: number | null;
  outcome: ExchangeOutcome;
  cancelled: boolean;
  depth: number;
  via: string | null;
  parent: PagedExchange | null;
  children: PagedChild[];
  childCount: number;
  progress: PagedProgress | null;
  /** Sent whole by a row before on the same page (its lines and relations are not repeated). */
  seen?: true;
}

export interface PagedRow {
  n: number;
  key: string;
  kind: string;
  file: string;
  lineNo: number;
  item: number | null;
  time: number | null;
  dir: 'in' | 'out' | null;
  depth: number;
  error: boolean;
  via: string | null;
  line: string;
  exchange: PagedExchange | null;
}

export interface PagedRowsPage {
  total: number;
  done: boolean;
  error: string | null;
  rows: PagedRow[];
}

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
  guess: boolean;
  marks: [number, 'progress' | 'log' | 'cancel' | 'other', boolean][];
  progress: PagedProgress | null;
}

export interface PagedBarsPage {
  total: number;
  start: number;
  bars: PagedBar[];
}

/** Latencies of one method (or tool) for the charts: a few hundred, evenly picked, the slowest kept. */
export interface PagedSample {
  dir: 'in' | 'out';
  method: string;
  tool: string | null;
  server: string | null;
  count: number;
  values: number[];
  errors: number[];
}

export interface PagedStats {
  stats: TraceStats;
  toolTimes: (Omit<ToolTime, 'meanMs' | 'p95Ms'> & { meanMs: number | null; p95Ms: number | null })[];
  samples: PagedSample[];
}

/** The view a page is asked from: the viewer's own filter parameters (q, re, tool, method, dir, server, err). */
export type PagedQuery = Readonly<Record<string, string>>;

/**
 * The server's paged API, as the data layer needs it; source/paged-api.ts implements it with fetch.
 */
export interface PagedApi {
  info(): Promise<PagedInfo>;
  rows(query: PagedQuery, from: number, count: number): Promise<PagedRowsPage>;
  find(query: PagedQuery, key: string): Promise<{ n: number; row: PagedRow } | undefined>;
  bars(query: PagedQuery, from: number, to: number, start: number, count: number): Promise<PagedBarsPage>;
  density(query: PagedQuery, buckets: number): Promise<number[]>;
  stats(): Promise<PagedStats>;
  /** The address of the view as a JSONL download. */
  exportUrl(query: PagedQuery): string;
}
