import { decodeValue } from '../trace/decode.js';
import type { EndLine, MetaLine, RecordLine, TraceLine } from '../trace/types.js';
import { ApiError } from './api-error.js';
import type { LineIndexer } from './columns.js';
import type { LineBatch, TraceStore, WriteMode } from './store.js';

/**
 * Ingestion of trace lines (tapedeck / mcp-tape JSONL) as they stream in: split into lines, decoded, given their
 * search columns, and written a batch at a time — one transaction per batch, so memory stays flat whatever the
 * size of the body. A malformed line stops the request with 400 naming its line number and the problem.
 */

export interface IngestTarget {
  store: TraceStore;
  n: number;
  mode: WriteMode;
  indexer: LineIndexer;
  /** Record lines per transaction. */
  batchLines: number;
}

export interface IngestResult {
  /** Record lines stored (the meta and end lines are not counted). */
  lines: number;
  /** Lines already stored before (a retried append). */
  duplicates: number;
  /** Lines of a type this version does not know; readers skip them, so the store does too. */
  skipped: number;
  /** What was accepted with a remark, e.g. a cut-off last line. */
  warnings: string[];
}

/** Collects lines and writes them in batches; shared by the JSONL path and the import path. */
export class BatchWriter {
  private batch: LineBatch = { records: [] };
  private metaSeen = false;
  readonly result: IngestResult = { lines: 0, duplicates: 0, skipped: 0, warnings: [] };

  constructor(private readonly target: IngestTarget) {}

  add(line: TraceLine, text: string): void {
    if (line.type === 'meta') {
      // The first meta is the trace's; later ones (segments, concatenated traces) add nothing.
      if (!this.metaSeen) this.batch.meta = { line: line as MetaLine, text };
      this.metaSeen = true;
    } else if (line.type === 'end') {
      this.batch.end = { line: line as EndLine, text };
    } else {
      const record = line as RecordLine;
      this.batch.records.push({ line: record, text, columns: this.target.indexer.columns(record) });
      if (this.batch.records.length >= this.target.batchLines) this.flush();
    }
  }

  flush(): void {
    const batch = this.batch;
    if (batch.records.length === 0 && batch.meta === undefined && batch.end === undefined) return;
    this.batch = { records: [] };
    const written = this.target.store.write(this.target.n, batch, this.target.mode);
    this.result.lines += written.stored.length;
    this.result.duplicates += written.duplicates;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads JSONL trace lines from `chunks` into the trace `target.n`. Each chunk's whole lines are decoded as one
 * string and handled without an await in between; only a line cut by a chunk boundary is carried over.
 *
 * @example const result = await ingestJsonl(bodyChunks, { store, n: row.n, mode: 'upload', indexer, batchLines: 5000 });
 */
export async function ingestJsonl(
  chunks: AsyncIterable<Uint8Array>,
  target: IngestTarget,
  maxLineBytes = Number.POSITIVE_INFINITY,
): Promise<IngestResult> {
  const writer = new BatchWriter(target);
  let carry: Uint8Array[] = [];
  let carried = 0;
  let lineNo = 0;
  const keep = (bytes: Uint8Array) => {
    if (bytes.length === 0) return;
    carry.push(bytes);
    carried += bytes.length;
    if (carried > maxLineBytes)
      throw malformed(lineNo + 1, `the line is longer than the limit of ${maxLineBytes} bytes`);
  };
  const takeCarry = (): Uint8Array => {
    const bytes = carry.length === 1 ? carry[0]! : Buffer.concat(carry);
    carry = [];
    carried = 0;
    return bytes;
  };
  for await (const chunk of chunks) {
    const last = chunk.lastIndexOf(10);
    if (last === -1) {
      keep(chunk);
      continue;
    }
    let start = 0;
    if (carried > 0) {
      const nl = chunk.indexOf(10);
      keep(chunk.subarray(0, nl));
      lineOfBytes(writer, takeCarry(), ++lineNo, true);
      start = nl + 1;
    }
    if (last > start) lineNo = region(writer, chunk.subarray(start, last), lineNo);
    else if (last === start) lineNo += 1;
    keep(chunk.subarray(last + 1));
  }
  if (carried > 0) lineOfBytes(writer, takeCarry(), ++lineNo, false);
  writer.flush();
  return writer.result;
}

/** Handles the whole lines of `bytes` (no final newline) that follow line `lineNo`; returns the last number. */
function region(writer: BatchWriter, bytes: Uint8Array, lineNo: number): number {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    // Somewhere in here is a line that is not UTF-8: line by line, to name it.
    let start = 0;
    for (;;) {
      const nl = bytes.indexOf(10, start);
      lineOfBytes(writer, bytes.subarray(start, nl === -1 ? bytes.length : nl), ++lineNo, true);
      if (nl === -1) return lineNo;
      start = nl + 1;
    }
  }
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    lineOfText(writer, text.slice(start, nl === -1 ? text.length : nl), ++lineNo, true);
    if (nl === -1) return lineNo;
    start = nl + 1;
  }
}

function lineOfBytes(writer: BatchWriter, bytes: Uint8Array, lineNo: number, terminated: boolean): void {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    if (cutOff(writer, lineNo, terminated, 'not valid UTF-8')) return;
    throw malformed(lineNo, 'not valid UTF-8');
  }
  lineOfText(writer, text, lineNo, terminated);
}

function lineOfText(writer: BatchWriter, raw: string, lineNo: number, terminated: boolean): void {
  const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (text.length === 0 || text.trim() === '') return;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const why = `not valid JSON (${(err as Error).message})`;
    if (cutOff(writer, lineNo, terminated, why)) return;
    throw malformed(lineNo, why);
  }
  const decoded = decodeValue(value);
  if (decoded.kind === 'invalid') throw malformed(lineNo, decoded.reason);
  if (decoded.kind === 'unknown') {
    writer.result.skipped += 1;
    return;
  }
  writer.add(decoded.line, text);
}

/** A last line without a newline that does not parse is a recorder cut off mid-write: accepted with a warning. */
function cutOff(writer: BatchWriter, lineNo: number, terminated: boolean, why: string): boolean {
  if (terminated) return false;
  writer.result.warnings.push(`line ${lineNo}: the last line is cut off (no newline, ${why}); ignored`);
  return true;
}

/** 400 naming the line and what is wrong with it. */
export function malformed(lineNo: number, problem: string): ApiError {
  return new ApiError(400, 'malformed_line', `line ${lineNo}: ${problem}`, { line: lineNo });
}
