import { TapedeckError } from '../../base/errors.js';
import { nestingProblem } from '../decode.js';
import { DiagnosticLog, splitLines } from '../reader.js';
import type { TraceSegment } from '../segments.js';
import type { MetaLine } from '../types.js';
import { detectDocumentFormat, detectHead, EXPECTED_FORMATS, HEAD_LINES } from './detect.js';
import { readWholeText, type TraceFiles } from './files.js';
import { harToTrace, isHar } from './har.js';
import { httpExchangesToTrace } from './http-exchanges.js';
import { mcporterEntries, mcporterMeta, scanMcporter } from './mcporter.js';
import { nativeBatches, openNative } from './native.js';
import type { OpenedTrace, OpenTraceOptions, TraceEntry, TraceFormat } from './opened.js';
import { shackToTrace } from './shack.js';

const DEFAULT_MAX_DOCUMENT_BYTES = 512 * 1024 * 1024;

/**
 * Opens a trace in any supported format through the given file access; the pure core of `openTrace` (io.ts), for
 * callers with their own files (the web viewer, tests). The format is detected from content.
 *
 * @example
 * const trace = await openTraceWith(memoryTraceFiles({ 'a.ndjson': ndjsonText }), 'a.ndjson');
 * trace.format; // → 'mcporter'
 * for await (const { line } of trace.lines()) …
 */
export async function openTraceWith(
  files: TraceFiles,
  path: string,
  options: OpenTraceOptions = {},
): Promise<OpenedTrace> {
  await files.check(path);
  const mode = options.mode ?? 'lenient';
  const log = new DiagnosticLog(mode, options.onDiagnostic, options.onUnknownLine);
  const maxLine = options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes };
  const newPass = () => new DiagnosticLog(mode, options.onDiagnostic, options.onUnknownLine);

  let document: unknown;
  let format = options.format;
  if (format === undefined) {
    const head = await readHead(files, path, options.maxLineBytes);
    const verdict = detectHead(head);
    if (verdict.kind === 'lines') format = verdict.format;
    else if (verdict.kind === 'document') {
      document = await readDocument(files, path, options.maxDocumentBytes);
      format = detectDocumentFormat(document);
    }
    if (format === undefined)
      throw unknownFormat(path, head.length === 0 ? 'is empty' : 'is in no format tapedeck reads');
  } else if (format === 'shack' || format === 'http-exchanges' || format === 'har') {
    document = await readDocument(files, path, options.maxDocumentBytes);
    if (document === undefined) throw unknownFormat(path, `is not valid JSON, so not ${format}`);
  }

  switch (format) {
    case 'tapedeck':
    case 'mcp-tape': {
      const { meta, segments } = await openNative(
        files,
        path,
        log,
        options.stitch ?? true,
        options.maxLineBytes,
      );
      const detected: TraceFormat = meta.producer?.name === 'tapedeck' ? 'tapedeck' : format;
      return opened(path, detected, meta, segments, log, newPass, (pass) =>
        nativeBatches(files, segments, pass, options.maxLineBytes, options.lineText === true, options),
      );
    }
    case 'mcporter': {
      const scan = await scanMcporter(files.read(path), new DiagnosticLog('lenient'));
      const meta = mcporterMeta(scan, path);
      return opened(path, format, meta, [{ file: path, segment: 0, meta }], log, newPass, (pass) =>
        inBatches(mcporterEntries(files.read(path), { file: path, log: pass, scan, ...maxLine })),
      );
    }
    case 'shack':
    case 'http-exchanges':
    case 'har': {
      const { meta, entries } =
        format === 'shack'
          ? shackToTrace(document, path, log)
          : format === 'har'
            ? harToTrace(asHar(document, path), path, log)
            : httpExchangesToTrace(asArray(document, path), path, log);
      return opened(path, format, meta, [{ file: path, segment: 0, meta }], log, newPass, (pass) =>
        fromArray(entries, pass),
      );
    }
  }
}

/**
 * Wraps a format's line source as an OpenedTrace. Each lines() call is a fresh pass with a fresh diagnostic log,
 * so reading twice does not report everything twice.
 */
function opened(
  path: string,
  format: TraceFormat,
  meta: MetaLine,
  segments: readonly TraceSegment[],
  openLog: DiagnosticLog,
  newPass: () => DiagnosticLog,
  batches: (pass: DiagnosticLog) => AsyncIterable<readonly TraceEntry[]>,
): OpenedTrace {
  let pass: DiagnosticLog | undefined;
  return {
    path,
    format,
    meta,
    segments,
    get diagnostics() {
      return pass === undefined ? [...openLog.list] : [...openLog.list, ...pass.list];
    },
    lines() {
      pass = newPass();
      return flatten(batches(pass));
    },
    batches() {
      pass = newPass();
      return batches(pass);
    },
  };
}

async function* flatten(batches: AsyncIterable<readonly TraceEntry[]>): AsyncGenerator<TraceEntry> {
  for await (const batch of batches) yield* batch;
}

/** A document's entries, less those nested too deep to walk (reported with their item number, as lines are). */
async function* fromArray(
  entries: readonly TraceEntry[],
  log: DiagnosticLog,
): AsyncGenerator<readonly TraceEntry[]> {
  yield entries.filter((entry) => {
    const deep = nestingProblem(entry.line);
    if (deep !== undefined) log.report('corrupt_line', 'error', entry.file, entry.lineNo, deep);
    return deep === undefined;
  });
}

/** Groups a line-at-a-time source for {@link OpenedTrace.batches}. */
async function* inBatches(entries: AsyncIterable<TraceEntry>): AsyncGenerator<TraceEntry[]> {
  let batch: TraceEntry[] = [];
  try {
    for await (const entry of entries) {
      batch.push(entry);
      if (batch.length === 1024) {
        yield batch;
        batch = [];
      }
    }
  } catch (err) {
    // Strict mode stops at a bad line: what came before it still reaches the caller first.
    if (batch.length > 0) yield batch;
    throw err;
  }
  if (batch.length > 0) yield batch;
}

/** The first few non-blank lines as text, undecodable bytes replaced: detection only needs a rough look. */
async function readHead(files: TraceFiles, path: string, maxLineBytes?: number): Promise<string[]> {
  const head: string[] = [];
  const decoder = new TextDecoder('utf-8');
  const options = maxLineBytes === undefined ? {} : { maxLineBytes };
  for await (const raw of splitLines(files.read(path), options)) {
    const text = decoder.decode(raw.bytes);
    if (text.trim() === '') continue;
    head.push(text);
    if (head.length >= HEAD_LINES) break;
  }
  return head;
}

async function readDocument(
  files: TraceFiles,
  path: string,
  maxBytes = DEFAULT_MAX_DOCUMENT_BYTES,
): Promise<unknown> {
  try {
    return JSON.parse(await readWholeText(files, path, maxBytes));
  } catch (err) {
    if (err instanceof TapedeckError) throw err;
    return undefined;
  }
}

function asArray(document: unknown, path: string): Record<string, unknown>[] {
  if (Array.isArray(document)) return document as Record<string, unknown>[];
  throw new TapedeckError(
    'unknown_format',
    `${path} is not an HTTP exchanges file: expected a JSON array of exchanges`,
  );
}

function asHar(document: unknown, path: string): { log: { entries: unknown[] } } {
  if (isHar(document)) return document;
  throw new TapedeckError(
    'unknown_format',
    `${path} is not a HAR file: expected {"log": {"entries": [...]}}`,
  );
}

function unknownFormat(path: string, what: string): TapedeckError {
  return new TapedeckError('unknown_format', `${path} ${what}: expected ${EXPECTED_FORMATS}`);
}
