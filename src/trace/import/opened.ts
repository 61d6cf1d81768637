import type { ScannedLine } from '../line-scan.js';
import type { ReadMode, TraceDiagnostic } from '../reader.js';
import type { TraceSegment } from '../segments.js';
import type { EndLine, MetaLine, RecordLine } from '../types.js';

/**
 * The formats openTrace reads, told apart by content, never by file extension:
 * - `tapedeck`: tapedeck's own JSONL (meta.producer.name is "tapedeck");
 * - `mcp-tape`: the mcp-tape / mcpreplay.dev open format v1 (tapedeck is a superset of it);
 * - `mcporter`: mcporter record NDJSON (JSON-RPC envelopes with `_meta {dir, server, ts}`);
 * - `shack`: a shack-session-replay trajectory JSON document;
 * - `http-exchanges`: a JSON array of HTTP request/response exchanges (method, headers, bodies, status).
 */
export type TraceFormat = 'tapedeck' | 'mcp-tape' | 'mcporter' | 'shack' | 'http-exchanges' | 'har';

/**
 * Whether a file of this format stays a file of its format when tapedeck JSONL is written over it: tapedeck's
 * own, and mcp-tape's, which it extends. Rewriting another tool's file in place would leave one its tool cannot read.
 *
 * @example keepsFormatAsTapedeck('mcporter') // → false
 */
export function keepsFormatAsTapedeck(format: string): boolean {
  return format === 'tapedeck' || format === 'mcp-tape';
}

export const TRACE_FORMATS: readonly TraceFormat[] = [
  'tapedeck',
  'mcp-tape',
  'mcporter',
  'shack',
  'http-exchanges',
  'har',
];

/** One line of an opened trace with where it came from. */
export interface TraceEntry {
  /** A record line (seq always set) or the end line. Meta lines live in OpenedTrace.meta / .segments. */
  line: RecordLine | EndLine;
  /** The file the line was read from (a rotated trace spans several). */
  file: string;
  /**
   * 1-based line number in `file`. For JSON document formats, the 1-based index of the source item;
   * 0 for lines an import synthesized (its `end` line).
   */
  lineNo: number;
  /** The segment number of `file` (0 for unrotated traces and imports); a change marks a segment boundary. */
  segment: number;
  /**
   * The JSON text the line was parsed from, when asked for (`lineText`) and the reader had it (tapedeck and mcp-tape
   * files): a consumer that keeps many messages can keep this and parse a message only when it is used. Its `seq`
   * may be missing (mcp-tape).
   */
  text?: string | undefined;
  /**
   * Set on message lines read by the `scan` option: the UTF-8 length of `JSON.stringify(raw)`, the message then
   * being reduced to what pairing reads.
   */
  rawBytes?: number;
}

export interface OpenTraceOptions {
  /** `lenient` (default) skips corrupt lines and reports them; `strict` throws TapedeckError('corrupt_trace'). */
  mode?: ReadMode;
  /** Skip detection and read as this format. */
  format?: TraceFormat;
  /** Follow rotated sibling segments with the same traceId (default true). */
  stitch?: boolean;
  /** Called for every diagnostic as it is found, e.g. to print warnings while a big file streams. */
  onDiagnostic?: (diagnostic: TraceDiagnostic) => void;
  /**
   * Called for each well-formed line of a `type` this version does not know (a newer producer's): readers skip
   * them, as the format says, but they are still in the file — `scan` looks at them too. `text` is the line as
   * read, with `lineText`.
   */
  onUnknownLine?: (line: Record<string, unknown>, file: string, lineNo: number, text?: string) => void;
  /** Lines longer than this are skipped and reported (default 256 MiB). */
  maxLineBytes?: number;
  /**
   * Entries carry the text of their line (`TraceEntry.text`) where the format has one line per entry. Off by
   * default: a consumer that keeps the text keeps the read buffers it points into.
   */
  lineText?: boolean;
  /**
   * Native traces only, not with `lineText`: read message lines from their bytes where the scanner can, their
   * messages reduced to what pairing and statistics read (`scanMessageLine`, see line-scan.ts).
   */
  scan?: ((bytes: Uint8Array) => ScannedLine | undefined) | undefined;
  /** {@link scan} of the line in bytes [start, end) of a chunk (see scanTimedSpan); used instead of `scan` when given. */
  scanSpan?: ((bytes: Uint8Array, start: number, end: number) => ScannedLine | undefined) | undefined;
  /** JSON document formats are read whole; larger files are refused (default 512 MiB). */
  maxDocumentBytes?: number;
}

/**
 * A trace ready to read, whatever format it came in. Records are normalized to trace format v1:
 * `seq` is assigned where the source had none, imported messages carry `server` (and `conn` on reconnects).
 *
 * @example
 * const trace = await openTrace('calls.jsonl');
 * console.log(trace.format, trace.meta.label);
 * for await (const { line, file, lineNo } of trace.lines()) {
 *   if (isMessageLine(line)) console.log(line.seq, line.dir, line.raw);
 * }
 * for (const d of trace.diagnostics) console.warn(d.message); // e.g. "calls.jsonl: no end line: …"
 */
export interface OpenedTrace {
  /** The path the trace was opened by. */
  readonly path: string;
  readonly format: TraceFormat;
  /** The trace's meta: the oldest segment's for a rotated trace, synthesized for imports. */
  readonly meta: MetaLine;
  /** The files the trace is made of, oldest first (one entry for unrotated traces and imports). */
  readonly segments: readonly TraceSegment[];
  /** What was noticed while opening plus what the latest lines() pass has noticed so far. */
  readonly diagnostics: readonly TraceDiagnostic[];
  /** Streams the record lines and the end line in order. Each call reads the file(s) again. */
  lines(): AsyncIterable<TraceEntry>;
  /** The same lines as {@link lines}, a batch at a time (a chunk of the file each), for readers that go fast. */
  batches(): AsyncIterable<readonly TraceEntry[]>;
}
