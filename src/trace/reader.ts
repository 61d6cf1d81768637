import { TapedeckError } from '../errors.js';
import { lineProblem } from './decode.js';
import type { TraceLine } from './types.js';

/**
 * The streaming reader: bytes in, trace lines out, in constant memory however large the file. Pure (no `node:`
 * imports) so the web viewer reads traces with it too; src/trace/io.ts feeds it file streams.
 */

export type DiagnosticCode =
  | 'corrupt_line'
  | 'truncated_line'
  | 'line_too_long'
  | 'missing_end'
  | 'missing_meta'
  | 'unexpected_meta'
  | 'seq_order'
  | 'bad_timestamp'
  | 'segment_gap'
  | 'segment_duplicate'
  | 'segment_unreadable';

/**
 * Something a reader noticed. `error`: a line was unusable and skipped (strict mode throws instead).
 * `warning`: the trace is readable but incomplete (cut-off last line, missing `end`, missing segments).
 */
export interface TraceDiagnostic {
  code: DiagnosticCode;
  severity: 'error' | 'warning';
  /** The file as it was named to the reader. */
  file: string;
  /** 1-based line number, when the finding is about one line. */
  line?: number;
  /** One line fit to show a person, starting with `file:line:`. */
  message: string;
}

/** `lenient` collects diagnostics and skips bad lines; `strict` throws TapedeckError('corrupt_trace') at the first error. */
export type ReadMode = 'lenient' | 'strict';

/** Diagnostics kept in memory; past this only the count grows, so a multi-GB garbage file cannot exhaust memory. */
const MAX_KEPT_DIAGNOSTICS = 1000;

/**
 * Where diagnostics go. Strict mode turns the first `error` into a thrown TapedeckError('corrupt_trace').
 *
 * @example
 * const log = new DiagnosticLog('lenient', (d) => console.warn(d.message));
 * for await (const { line } of readTraceLines(chunks, { file: 'trace.jsonl', log })) use(line);
 * log.list; // everything noticed
 */
export class DiagnosticLog {
  readonly list: TraceDiagnostic[] = [];
  /** Diagnostics reported but not kept in `list` (beyond the first 1000). */
  dropped = 0;

  constructor(
    readonly mode: ReadMode = 'lenient',
    private readonly onDiagnostic?: (diagnostic: TraceDiagnostic) => void,
    /** Hears of each well-formed line of an unknown `type`, which readers skip. */
    readonly onUnknown?: (line: Record<string, unknown>, file: string, lineNo: number) => void,
  ) {}

  report(
    code: DiagnosticCode,
    severity: TraceDiagnostic['severity'],
    file: string,
    line: number | undefined,
    text: string,
  ) {
    const where = line === undefined ? file : `${file}:${line}`;
    const diagnostic: TraceDiagnostic = { code, severity, file, message: `${where}: ${text}` };
    if (line !== undefined) diagnostic.line = line;
    if (this.mode === 'strict' && severity === 'error')
      throw new TapedeckError('corrupt_trace', diagnostic.message);
    if (this.list.length < MAX_KEPT_DIAGNOSTICS) this.list.push(diagnostic);
    else this.dropped++;
    this.onDiagnostic?.(diagnostic);
  }
}

/** Lines longer than this are skipped (reported), so a file without newlines cannot exhaust memory. */
export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;

/** One physical line: its bytes without `\n` or a trailing `\r`. */
export interface RawLine {
  lineNo: number;
  bytes: Uint8Array;
  /** False for a last line with no newline after it (a cut-off write, or just a missing final newline). */
  terminated: boolean;
  /** Set when the line exceeded maxLineBytes; `bytes` is then empty and this is its full length. */
  overflowBytes?: number;
}

/**
 * Splits a byte stream into lines on `\n` bytes. Splitting bytes (not decoded text) keeps UTF-8 sequences cut
 * across chunk boundaries intact: 0x0A never occurs inside a multi-byte sequence. A trailing `\r` is dropped (CRLF).
 *
 * @example
 * for await (const { lineNo, bytes } of splitLines(fs.createReadStream('trace.jsonl'))) …
 */
export async function* splitLines(
  chunks: AsyncIterable<Uint8Array>,
  options: { maxLineBytes?: number } = {},
): AsyncGenerator<RawLine> {
  const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let parts: Uint8Array[] = [];
  let size = 0;
  let lineNo = 0;
  for await (const chunk of chunks) {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      // Once a line is over the limit its parts are dropped; only its length is still counted.
      if (size + (end - start) > max) parts = [];
      else if (end > start) parts.push(chunk.subarray(start, end));
      size += end - start;
      if (nl === -1) break;
      yield finishLine(parts, size, max, ++lineNo, true);
      parts = [];
      size = 0;
      start = nl + 1;
    }
  }
  if (size > 0) yield finishLine(parts, size, max, ++lineNo, false);
}

function finishLine(
  parts: Uint8Array[],
  size: number,
  max: number,
  lineNo: number,
  terminated: boolean,
): RawLine {
  if (size > max) return { lineNo, bytes: new Uint8Array(0), terminated, overflowBytes: size };
  let bytes = parts.length === 1 ? parts[0]! : concat(parts, size);
  if (bytes.length > 0 && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1);
  return { lineNo, bytes, terminated };
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export interface ReadOptions {
  /** The file name used in diagnostics. */
  file: string;
  log: DiagnosticLog;
  maxLineBytes?: number;
}

/** A parsed JSON line with its 1-based line number. */
export interface JsonLine {
  value: unknown;
  lineNo: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What a {@link LineSplitter} hands over, one call per physical line, in order. */
export interface LineHandler {
  /**
   * A line's text, without `\n` or a trailing `\r` (possibly empty). `terminated` is false for a last line with no
   * newline after it: a cut-off write, or just a missing final newline.
   */
  text(text: string, lineNo: number, terminated: boolean): void;
  /** A line whose bytes are not valid UTF-8. */
  notUtf8(lineNo: number, terminated: boolean): void;
  /** A line over the limit; its bytes were not kept, only counted. */
  tooLong(lineNo: number, bytes: number, terminated: boolean): void;
}

/**
 * Bytes in, text lines out, synchronously: push chunks as they arrive, then end(). Each chunk's whole lines are
 * decoded as one string and split there (decoding line by line costs twice as much); only a line cut by a chunk
 * boundary is carried over. A region that is not valid UTF-8, or could hold an over-long line, goes line by line
 * to name the bad one. The trace reader and the collector's ingest both read with it. A handler may throw: the
 * lines before the throwing one have been handed over, and the splitter should then be dropped.
 *
 * @example
 * const splitter = new LineSplitter({ text: (t, n) => lines.push([n, t]), notUtf8: … , tooLong: … });
 * for await (const chunk of chunks) splitter.push(chunk);
 * splitter.end();
 */
export class LineSplitter {
  /** The start of a line that a later chunk finishes. */
  private parts: Uint8Array[] = [];
  private size = 0;
  private lineNo = 0;

  constructor(
    private readonly handler: LineHandler,
    private readonly max = DEFAULT_MAX_LINE_BYTES,
  ) {}

  push(chunk: Uint8Array): void {
    const last = chunk.lastIndexOf(10);
    if (last === -1) {
      this.carry(chunk);
      return;
    }
    let start = 0;
    if (this.size > 0) {
      const nl = chunk.indexOf(10);
      this.carry(chunk.subarray(0, nl));
      this.finish(true);
      start = nl + 1;
    }
    if (last >= start) this.region(chunk.subarray(start, last));
    this.carry(chunk.subarray(last + 1));
  }

  /** The end of input: a last line without a newline is handed over (unterminated). */
  end(): void {
    if (this.size > 0) this.finish(false);
  }

  private carry(bytes: Uint8Array): void {
    // Once a line is over the limit its parts are dropped; only its length is still counted.
    if (this.size + bytes.length > this.max) this.parts = [];
    else if (bytes.length > 0) this.parts.push(bytes);
    this.size += bytes.length;
  }

  private finish(terminated: boolean): void {
    const raw = finishLine(this.parts, this.size, this.max, ++this.lineNo, terminated);
    this.parts = [];
    this.size = 0;
    this.rawLine(raw);
  }

  private rawLine(raw: RawLine): void {
    if (raw.overflowBytes !== undefined) {
      this.handler.tooLong(raw.lineNo, raw.overflowBytes, raw.terminated);
      return;
    }
    let text: string;
    try {
      text = utf8.decode(raw.bytes);
    } catch {
      this.handler.notUtf8(raw.lineNo, raw.terminated);
      return;
    }
    this.handler.text(text, raw.lineNo, raw.terminated);
  }

  /** The complete lines in `region` (no final newline). */
  private region(region: Uint8Array): void {
    let text: string | undefined;
    if (region.length <= this.max) {
      try {
        text = utf8.decode(region);
      } catch {
        text = undefined;
      }
    }
    if (text === undefined) {
      let start = 0;
      for (;;) {
        const nl = region.indexOf(10, start);
        const bytes = region.subarray(start, nl === -1 ? region.length : nl);
        this.rawLine(
          bytes.length > this.max
            ? {
                lineNo: ++this.lineNo,
                bytes: new Uint8Array(0),
                terminated: true,
                overflowBytes: bytes.length,
              }
            : finishLine([bytes], bytes.length, this.max, ++this.lineNo, true),
        );
        if (nl === -1) return;
        start = nl + 1;
      }
    }
    const handler = this.handler;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      let end = nl === -1 ? text.length : nl;
      if (end > start && text.charCodeAt(end - 1) === 13) end--;
      handler.text(end > start ? text.slice(start, end) : '', ++this.lineNo, true);
      if (nl === -1) return;
      start = nl + 1;
    }
  }
}

/**
 * Parses each non-blank line as JSON. Bad lines are reported with their line number and skipped; a cut-off last
 * line (no newline and unparseable: the writer died mid-line) is a warning, never fatal, even in strict mode.
 */
export async function* readJsonLines(
  chunks: AsyncIterable<Uint8Array>,
  options: ReadOptions,
): AsyncGenerator<JsonLine> {
  for await (const batch of readJsonBatches(chunks, options)) yield* batch;
}

/**
 * {@link readJsonLines} a chunk at a time: one array per chunk read (never empty), for callers that would
 * otherwise pay an async step per line.
 */
export function readJsonBatches(
  chunks: AsyncIterable<Uint8Array>,
  options: ReadOptions,
): AsyncGenerator<JsonLine[]> {
  return readParsedBatches(chunks, options, (value, lineNo) => ({ value, lineNo }));
}

/**
 * The parsed lines of each chunk, each made into what `take` returns (undefined leaves it out). One pass: a line
 * is split, parsed and taken before the next, with no record of it in between.
 */
async function* readParsedBatches<T>(
  chunks: AsyncIterable<Uint8Array>,
  options: ReadOptions,
  take: (value: unknown, lineNo: number) => T | undefined,
): AsyncGenerator<T[]> {
  const { file, log } = options;
  let out: T[] = [];
  const splitter = new LineSplitter(
    {
      text(text, lineNo, terminated) {
        if (text.length === 0) return;
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (err) {
          if (text.trim() === '') return;
          const reason = `not valid JSON (${err instanceof Error ? err.message : String(err)})`;
          if (!terminated) cutOff(log, file, lineNo, reason);
          else log.report('corrupt_line', 'error', file, lineNo, reason);
          return;
        }
        const taken = take(value, lineNo);
        if (taken !== undefined) out.push(taken);
      },
      notUtf8(lineNo, terminated) {
        if (!terminated) cutOff(log, file, lineNo, 'not valid UTF-8');
        else log.report('corrupt_line', 'error', file, lineNo, 'not valid UTF-8');
      },
      tooLong(lineNo, bytes) {
        log.report(
          'line_too_long',
          'error',
          file,
          lineNo,
          `line of ${bytes} bytes is over the limit; skipped`,
        );
      },
    },
    options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
  );
  for await (const chunk of chunks) {
    try {
      splitter.push(chunk);
    } finally {
      // In strict mode a report throws: the lines before the bad one still reach the caller first.
      if (out.length > 0) yield out;
      out = [];
    }
  }
  splitter.end();
  if (out.length > 0) yield out;
}

function cutOff(log: DiagnosticLog, file: string, lineNo: number, reason: string): void {
  log.report(
    'truncated_line',
    'warning',
    file,
    lineNo,
    `last line is cut off (no newline, ${reason}); ignored`,
  );
}

/** A decoded trace line with its 1-based line number. */
export interface ReadLine {
  line: TraceLine;
  lineNo: number;
}

/**
 * Reads the trace lines of one file: decodes each line, reports corrupt ones, skips unknown `type`s silently
 * (the format says readers ignore them). It does not stitch segments or check for `end`; openTrace does.
 *
 * @example
 * const log = new DiagnosticLog('strict');
 * for await (const { line, lineNo } of readTraceLines(chunks, { file: 'trace.jsonl', log })) …
 */
export async function* readTraceLines(
  chunks: AsyncIterable<Uint8Array>,
  options: ReadOptions,
): AsyncGenerator<ReadLine> {
  for await (const batch of readTraceBatches(chunks, options)) yield* batch;
}

/** {@link readTraceLines} a chunk at a time (see {@link readJsonBatches}); a batch is never empty. */
export function readTraceBatches(
  chunks: AsyncIterable<Uint8Array>,
  options: ReadOptions,
): AsyncGenerator<ReadLine[]> {
  return readSegmentBatches(chunks, options, 0);
}

/**
 * {@link readTraceBatches} for one segment of a trace: each line comes with its file and segment already, so a
 * caller that hands lines on as trace entries (every line of a big cassette) need not copy each one.
 */
export function readSegmentBatches(
  chunks: AsyncIterable<Uint8Array>,
  options: ReadOptions,
  segment: number,
): AsyncGenerator<SegmentLine[]> {
  const { file, log } = options;
  return readParsedBatches(chunks, options, (value, lineNo): SegmentLine | undefined => {
    const problem = lineProblem(value);
    if (problem === undefined) return { line: value as TraceLine, file, lineNo, segment };
    if (problem.kind === 'invalid') log.report('corrupt_line', 'error', file, lineNo, problem.reason);
    else log.onUnknown?.(value as Record<string, unknown>, file, lineNo);
    return undefined;
  });
}

/** A {@link ReadLine} that knows where it was read: the file and the trace segment the file is. */
export interface SegmentLine extends ReadLine {
  file: string;
  segment: number;
}

/** The first decodable line of a file (its meta, in a native trace), or undefined. Stops reading right there. */
export async function readFirstLine(
  chunks: AsyncIterable<Uint8Array>,
  options: ReadOptions,
): Promise<ReadLine | undefined> {
  for await (const line of readTraceLines(chunks, options)) return line;
  return undefined;
}
