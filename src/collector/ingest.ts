import { BYTE_STYLES, formatBytes } from '../base/units.js';
import { decodeValue } from '../trace/decode.js';
import { LineSplitter } from '../trace/reader.js';
import type { EndLine, MetaLine, RecordLine, TraceLine } from '../trace/types.js';
import { ApiError } from './api-error.js';
import type { LineIndexer } from './columns.js';
import type { CollectorStore, LineBatch, WriteMode } from './store.js';

/**
 * Ingestion of trace lines (tapedeck / mcp-tape JSONL) as they stream in: split into lines, decoded, given their
 * search columns, and written a batch at a time — one transaction per batch, bounded in lines and bytes, so memory
 * stays flat whatever the size of the body. A malformed line stops the request with 400 naming its line number and
 * the problem; a line over the line limit with 413 as soon as it passes it.
 */

export interface IngestTarget {
  store: CollectorStore;
  n: number;
  mode: WriteMode;
  indexer: LineIndexer;
  /** Record lines per transaction. */
  batchLines: number;
  /** Bytes of record lines per transaction (default: no bound besides `batchLines`). */
  batchBytes?: number;
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

/**
 * Collects lines into batches and writes them; shared by the JSONL path and the import path. `add` is synchronous
 * (it runs inside the line splitter); full batches wait until `drain`, which the reader awaits after each chunk,
 * so at most one chunk's worth of batches is held.
 */
export class BatchWriter {
  private batch: LineBatch = { records: [] };
  private readonly ready: LineBatch[] = [];
  private batchBytes = 0;
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
      this.batchBytes += text.length;
      if (
        this.batch.records.length >= this.target.batchLines ||
        this.batchBytes >= (this.target.batchBytes ?? Number.POSITIVE_INFINITY)
      )
        this.cut();
    }
  }

  /** Writes the full batches, one transaction each, in order. */
  async drain(): Promise<void> {
    for (let batch = this.ready.shift(); batch !== undefined; batch = this.ready.shift()) {
      const written = await this.target.store.write(this.target.n, batch, this.target.mode);
      this.result.lines += written.stored.length;
      this.result.duplicates += written.duplicates;
    }
  }

  /** Writes everything added so far, the last batch too. */
  async flush(): Promise<void> {
    this.cut();
    await this.drain();
  }

  private cut(): void {
    const batch = this.batch;
    if (batch.records.length === 0 && batch.meta === undefined && batch.end === undefined) return;
    this.batch = { records: [] };
    this.batchBytes = 0;
    this.ready.push(batch);
  }
}

/**
 * Reads JSONL trace lines from `chunks` into the trace `target.n`. Each chunk's lines are handled without an await
 * in between (the trace reader's LineSplitter); only a line cut by a chunk boundary is carried over.
 *
 * @example const result = await ingestJsonl(bodyChunks, { store, n: row.n, mode: 'upload', indexer, batchLines: 5000 });
 */
export async function ingestJsonl(
  chunks: AsyncIterable<Uint8Array>,
  target: IngestTarget,
  maxLineBytes = Number.POSITIVE_INFINITY,
): Promise<IngestResult> {
  const writer = new BatchWriter(target);
  const splitter = new LineSplitter(
    {
      text: (text, lineNo, terminated) => lineOfText(writer, text, lineNo, terminated),
      notUtf8(lineNo, terminated) {
        if (!cutOff(writer, lineNo, terminated, 'not valid UTF-8'))
          throw malformed(lineNo, 'not valid UTF-8');
      },
      // As soon as a line passes the limit, not once the whole of it has arrived.
      overflow(lineNo) {
        throw lineTooLong(lineNo, maxLineBytes);
      },
      tooLong(lineNo) {
        throw lineTooLong(lineNo, maxLineBytes);
      },
    },
    maxLineBytes,
  );
  for await (const chunk of chunks) {
    splitter.push(chunk);
    await writer.drain();
  }
  splitter.end();
  await writer.flush();
  return writer.result;
}

function lineOfText(writer: BatchWriter, text: string, lineNo: number, terminated: boolean): void {
  if (text.length === 0 || text.trim() === '') return;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const why = `not valid JSON (${(err as Error).message})`;
    if (cutOff(writer, lineNo, terminated, why)) return;
    throw malformed(lineNo, why);
  }
  const decoded = decodeValue(value, text);
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

/** 413 for a line over the limit, naming the line, the limit and the flag that raises it. */
export function lineTooLong(lineNo: number, limit: number): ApiError {
  return new ApiError(
    413,
    'payload_too_large',
    `line ${lineNo} is longer than the limit of ${formatBytes(limit, BYTE_STYLES.prose)} for one line; start the collector with a larger --max-line`,
    { line: lineNo, limit },
    { connection: 'close' },
  );
}
