import { TapedeckError } from '../base/errors.js';
import { lineProblem, nestingProblem, parseFailure } from './decode.js';
import type { ScannedLine } from './line-scan.js';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter } from './lines.js';
import type { TraceLine } from './types.js';

/**
 * The streaming reader: bytes in, trace lines out, in constant memory however large the file. Pure (no `node:`
 * imports) so the web viewer reads traces with it too; src/trace/io.ts feeds it file streams.
 */

export {
  DEFAULT_MAX_LINE_BYTES,
  type LineHandler,
  LineSplitter,
  type RawLine,
  splitLines,
} from './lines.js';

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
    /** Hears of each well-formed line of an unknown `type`, which readers skip (with its text, when asked for). */
    readonly onUnknown?: (line: Record<string, unknown>, file: string, lineNo: number, text?: string) => void,
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

export interface ReadOptions {
  /** The file name used in diagnostics. */
  file: string;
  log: DiagnosticLog;
  maxLineBytes?: number;
  /** Hand each line's text on as well (see {@link SegmentLine}); off by default, since keeping it keeps the file. */
  lineText?: boolean;
  /**
   * Reads message lines from their bytes where it can (see line-scan.ts): such a line comes with `rawBytes` and a
   * message reduced to what pairing reads. Not with `lineText`.
   */
  scan?: ((bytes: Uint8Array) => ScannedLine | undefined) | undefined;
  /**
   * {@link scan} of the line that starts at `start` of a chunk's lines [start, end), without a view made per line
   * (see scanTimedSpan): a line it takes says where it ends. Used instead of `scan` when given.
   */
  scanSpan?: ((bytes: Uint8Array, start: number, end: number) => ScannedLine | undefined) | undefined;
}

/** A parsed JSON line with its 1-based line number. */
export interface JsonLine {
  value: unknown;
  lineNo: number;
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

/** A reader of lines from their bytes: `take` reads the line at `start` (see ReadOptions.scanSpan) and sets `end`. */
interface Scanned<T> {
  take(bytes: Uint8Array, start: number, end: number, lineNo: number): T | undefined;
  /** Where the line last taken ends. */
  end: number;
}

/**
 * The parsed lines of each chunk, each made into what `take` returns (undefined leaves it out). One pass: a line
 * is split, parsed and taken before the next, with no record of it in between.
 */
async function* readParsedBatches<T>(
  chunks: AsyncIterable<Uint8Array>,
  options: ReadOptions,
  take: (value: unknown, lineNo: number, text: string) => T | undefined,
  scanned?: Scanned<T>,
): AsyncGenerator<T[]> {
  const { file, log } = options;
  let out: T[] = [];
  const splitter = new LineSplitter(
    {
      ...(scanned === undefined
        ? {}
        : {
            bytes(bytes: Uint8Array, lineNo: number) {
              const taken = scanned.take(bytes, 0, bytes.length, lineNo);
              if (taken === undefined || scanned.end !== bytes.length) return false;
              out.push(taken);
              return true;
            },
            span(chunk: Uint8Array, start: number, end: number, lineNo: number) {
              const taken = scanned.take(chunk, start, end, lineNo);
              if (taken === undefined) return -1;
              out.push(taken);
              return scanned.end;
            },
          }),
      text(text, lineNo, terminated) {
        if (text.length === 0) return;
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (err) {
          if (text.trim() === '') return;
          const reason = parseFailure(err);
          if (!terminated) cutOff(log, file, lineNo, reason);
          else log.report('corrupt_line', 'error', file, lineNo, reason);
          return;
        }
        // Before anything walks it: every later step recurses (see MAX_NESTING).
        const deep = nestingProblem(value, text);
        if (deep !== undefined) {
          log.report('corrupt_line', 'error', file, lineNo, deep);
          return;
        }
        const taken = take(value, lineNo, text);
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
  const withText = options.lineText === true;
  const scan = withText ? undefined : spanScanner(options);
  return readParsedBatches(
    chunks,
    options,
    (value, lineNo, text): SegmentLine | undefined => {
      const problem = lineProblem(value);
      if (problem === undefined)
        return { line: value as TraceLine, file, lineNo, segment, text: withText ? text : undefined };
      if (problem.kind === 'invalid') log.report('corrupt_line', 'error', file, lineNo, problem.reason);
      else log.onUnknown?.(value as Record<string, unknown>, file, lineNo, withText ? text : undefined);
      return undefined;
    },
    scan && {
      end: 0,
      take(bytes, start, end, lineNo): SegmentLine | undefined {
        const found = scan(bytes, start, end);
        if (found === undefined) return undefined;
        this.end = found.end ?? end;
        return { line: found.line, file, lineNo, segment, text: undefined, rawBytes: found.rawBytes };
      },
    },
  );
}

/** The reader's scan of the line at `start` (see ReadOptions.scanSpan): `scanSpan`, or `scan` of its bytes. */
function spanScanner(
  options: ReadOptions,
): ((bytes: Uint8Array, start: number, end: number) => ScannedLine | undefined) | undefined {
  const { scan, scanSpan } = options;
  if (scanSpan !== undefined) return scanSpan;
  if (scan === undefined) return undefined;
  return (bytes, start, end) => {
    const nl = bytes.indexOf(10, start);
    let stop = nl === -1 || nl > end ? end : nl;
    if (stop > start && bytes[stop - 1] === 13) stop--;
    const found = scan(start === 0 && stop === bytes.length ? bytes : bytes.subarray(start, stop));
    if (found !== undefined) found.end = stop;
    return found;
  };
}

/** A {@link ReadLine} that knows where it was read: the file and the trace segment the file is, and its text. */
export interface SegmentLine extends ReadLine {
  file: string;
  segment: number;
  /** The line as read (the JSON text `line` was parsed from), when asked for with `lineText`. */
  text: string | undefined;
  /** For a line read by a `scan`: the UTF-8 length of `JSON.stringify(raw)` (its message is reduced). */
  rawBytes?: number;
}

/** The first decodable line of a file (its meta, in a native trace), or undefined. Stops reading right there. */
export async function readFirstLine(
  chunks: AsyncIterable<Uint8Array>,
  options: ReadOptions,
): Promise<ReadLine | undefined> {
  for await (const line of readTraceLines(chunks, options)) return line;
  return undefined;
}
