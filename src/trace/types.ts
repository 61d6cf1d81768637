/**
 * Trace format v1: one JSON object per line, append-only. A superset of the mcp-tape / mcpreplay.dev open format v1,
 * so `meta` / `{t, dir, raw}` / `end` readers open tapedeck traces unchanged. Readers ignore unknown fields and types.
 */

export const TRACE_VERSION = 1 as const;

/** `in` = client → server, `out` = server → client. */
export type Direction = 'in' | 'out';

export type TransportKind = 'stdio' | 'http' | 'sse' | 'memory';

export type EndReason = 'process_exit' | 'producer_shutdown' | 'transport_error' | 'imported';

/** Any JSON value as parsed from the wire. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Producer {
  name: string;
  version: string;
}

export interface MetaLine {
  v: 1;
  type: 'meta';
  startedAt: string;
  label: string;
  command?: string[];
  /** What the trace records: MCP traffic (the default), or an LLM provider's API (`record --llm`). */
  kind?: 'mcp' | 'llm';
  producer?: Producer;
  traceId?: string;
  segment?: number;
  transport?: TransportKind;
  server?: string;
  url?: string;
  [extra: string]: unknown;
}

/** A JSON-RPC message (or batch) as it crossed the wire. A message line carries no `type` field. */
export interface MessageLine {
  type?: undefined;
  t: string;
  seq?: number;
  dir: Direction;
  raw: Json;
  server?: string;
  conn?: string;
  stream?: string;
  eventId?: string;
  [extra: string]: unknown;
}

/** A non-JSON line seen on a pipe (banners, stray logs); forwarded and kept. */
export interface TextLine {
  type: 'text';
  t: string;
  seq?: number;
  dir: Direction;
  text: string;
  server?: string;
  [extra: string]: unknown;
}

/** A line the server wrote to stderr. */
export interface StderrLine {
  type: 'stderr';
  t: string;
  seq?: number;
  text: string;
  server?: string;
  [extra: string]: unknown;
}

/** HTTP envelope facts (headers already redacted). */
export interface HttpLine {
  type: 'http';
  t: string;
  seq?: number;
  conn: string;
  stream?: string;
  dir: Direction;
  method?: string;
  url?: string;
  status?: number;
  headers: Record<string, string | string[]>;
  [extra: string]: unknown;
}

export type EventName =
  | 'write_error'
  | 'truncated'
  | 'dropped'
  | 'redaction_error'
  | 'spawn'
  | 'connect'
  | 'disconnect'
  | 'lifecycle'
  | (string & {});

/** A diagnostic the recorder itself noticed. */
export interface EventLine {
  type: 'event';
  t: string;
  seq?: number;
  name: EventName;
  [extra: string]: unknown;
}

export interface EndCounts {
  in?: number;
  out?: number;
  text?: number;
  stderr?: number;
  events?: number;
  /** JSON-RPC error responses among the messages (each one in a batch counts), so a listing needs no full read. */
  errors?: number;
  /** Results that report a tool failure in-band (`isError: true`). */
  toolErrors?: number;
  [extra: string]: number | undefined;
}

export interface EndLine {
  type: 'end';
  t: string;
  durationMs: number;
  exitCode?: number | null;
  signal?: string | null;
  reason?: EndReason;
  counts?: EndCounts;
  [extra: string]: unknown;
}

export type TraceLine = MetaLine | MessageLine | TextLine | StderrLine | HttpLine | EventLine | EndLine;

/** Lines that get a sequence number: everything but `meta` and `end`. */
export type RecordLine = MessageLine | TextLine | StderrLine | HttpLine | EventLine;

/** The body of a record line before the writer stamps `seq` on it. */
export type RecordBody =
  | Omit<MessageLine, 'seq'>
  | Omit<TextLine, 'seq'>
  | Omit<StderrLine, 'seq'>
  | Omit<HttpLine, 'seq'>
  | Omit<EventLine, 'seq'>;

export function isMessageLine(line: TraceLine): line is MessageLine {
  return line.type === undefined && 'raw' in line && 'dir' in line;
}
