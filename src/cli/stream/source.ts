import type { TraceFiles } from '../../trace/import/files.js';
import { mcporterEntries, scanMcporter } from '../../trace/import/mcporter.js';
import type { OpenedTrace } from '../../trace/import/opened.js';
import { nodeTraceFiles, openTrace } from '../../trace/io.js';
import { DiagnosticLog, readTraceLines, type TraceDiagnostic } from '../../trace/reader.js';
import type { MetaLine, TraceLine } from '../../trace/types.js';
import { followFile } from './follow.js';

/**
 * Where `show` and `stats` get their lines: the ordinary reader (openTrace, every importable format), or, with
 * `follow`, the same line decoders fed by a tail of the growing file.
 */

/** A trace line with its 1-based line number in its file (undefined for metas the reader holds apart). */
export interface SourceLine {
  line: TraceLine;
  lineNo: number | undefined;
}

export interface SourceOptions {
  /** Keep reading as the file grows until this signal aborts (line formats; documents are read once). */
  follow?: AbortSignal | undefined;
  /** Problems found while reading (corrupt lines, a missing end line …). */
  onDiagnostic?: (diagnostic: TraceDiagnostic) => void;
  /** Where the bytes come from (default: the file system, `-` the process's stdin). */
  files?: TraceFiles;
}

export interface TraceSource {
  format: OpenedTrace['format'];
  meta: MetaLine;
  /** The meta line first, then every record and the end line, in order. */
  lines: AsyncIterable<SourceLine>;
}

/**
 * Opens a trace for reading. Fails (before any output) with TapedeckError `not_found`, `is_directory`,
 * `unknown_format` … naming the path.
 *
 * @example const { lines } = await openSource('trace.jsonl'); for await (const { line } of lines) …
 */
export async function openSource(path: string, options: SourceOptions = {}): Promise<TraceSource> {
  const diagnostics = options.onDiagnostic ? { onDiagnostic: options.onDiagnostic } : {};
  const trace = await openTrace(path, diagnostics, options.files);
  const follow = options.follow;
  const lines =
    follow === undefined ||
    trace.format === 'shack' ||
    trace.format === 'http-exchanges' ||
    trace.format === 'har'
      ? readOnce(trace)
      : followLines(path, trace, follow, options.onDiagnostic);
  return { format: trace.format, meta: trace.meta, lines };
}

/**
 * The trace's lines as the reader gives them, the meta first and each later segment's meta where it starts.
 * `until` stops before the lines of that file (the one `--follow` tails itself).
 */
async function* readOnce(trace: OpenedTrace, until?: string): AsyncGenerator<SourceLine> {
  let segment = trace.segments[0]?.segment ?? 0;
  yield { line: trace.meta, lineNo: undefined };
  for await (const entry of trace.lines()) {
    if (entry.file === until) return;
    if (entry.segment !== segment) {
      segment = entry.segment;
      const meta = trace.segments.find((s) => s.segment === segment)?.meta;
      if (meta) yield { line: meta, lineNo: undefined };
    }
    yield { line: entry.line, lineNo: entry.lineNo };
  }
}

/**
 * Tails the active file `path`. Segments rotated away before we started come first, from the ordinary reader;
 * after that a meta line in the tailed bytes means the recorder rotated while we watched.
 */
async function* followLines(
  path: string,
  trace: OpenedTrace,
  signal: AbortSignal,
  onDiagnostic: ((diagnostic: TraceDiagnostic) => void) | undefined,
): AsyncGenerator<SourceLine> {
  const log = new DiagnosticLog('lenient', onDiagnostic);
  const rotated = trace.segments.length > 1;
  if (rotated) yield* readOnce(trace, path);
  else yield { line: trace.meta, lineNo: undefined };
  const chunks = followFile(path, { signal });
  if (trace.format === 'mcporter') {
    const scan = await scanMcporter(nodeTraceFiles.read(path), new DiagnosticLog('lenient'));
    for await (const entry of mcporterEntries(chunks, { file: path, log, scan })) {
      // The importer closes with a synthesized end line when the input stops; a followed file just stopped.
      if (entry.line.type !== 'end') yield { line: entry.line, lineNo: entry.lineNo };
    }
    return;
  }
  let first = true;
  for await (const { line, lineNo } of readTraceLines(chunks, { file: path, log })) {
    // An unrotated file's own meta was yielded above; any other meta marks a segment.
    if (!(first && !rotated && line.type === 'meta')) yield { line, lineNo };
    first = false;
  }
}
