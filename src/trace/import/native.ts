import { DiagnosticLog, type ReadOptions, readFirstLine, readSegmentBatches } from '../reader.js';
import { planSegments, siblingCandidates, splitPath, type TraceSegment } from '../segments.js';
import type { MetaLine, RecordLine } from '../types.js';
import type { TraceFiles } from './files.js';
import type { TraceEntry } from './opened.js';

/**
 * Native traces: tapedeck JSONL and the mcp-tape format it extends. Reading them is mostly passing lines through;
 * the work is stitching rotated segments, giving mcp-tape lines (which have no `seq`) a sequence number, and
 * noticing a missing `end`.
 */

export interface NativeOpen {
  meta: MetaLine;
  segments: TraceSegment[];
}

/**
 * Reads the meta of `path` and finds its rotated siblings (same folder, same name stem, same traceId).
 * A file whose first line is not a meta gets a stand-in meta and a `missing_meta` warning.
 *
 * @example
 * const { meta, segments } = await openNative(files, 'calls.1.jsonl', log, true);
 * segments.map((s) => s.file); // → ['calls.2.jsonl', 'calls.1.jsonl', 'calls.jsonl']
 */
export async function openNative(
  files: TraceFiles,
  path: string,
  log: DiagnosticLog,
  stitch: boolean,
  maxLineBytes?: number,
): Promise<NativeOpen> {
  const first = await firstLine(files, path, maxLineBytes);
  if (first?.type !== 'meta') {
    log.report(
      'missing_meta',
      'warning',
      path,
      undefined,
      'does not start with a meta line; label and start time are guessed',
    );
    const t = first?.t;
    const meta: MetaLine = {
      v: 1,
      type: 'meta',
      startedAt: typeof t === 'string' ? t : new Date(0).toISOString(),
      label: stemOf(path),
    };
    return { meta, segments: [{ file: path, segment: 0, meta }] };
  }
  const own: TraceSegment = { file: path, segment: first.segment ?? 0, meta: first };
  const traceId = first.traceId;
  if (!stitch || typeof traceId !== 'string') return { meta: first, segments: [own] };

  const found = [own];
  for (const other of siblingCandidates(path, await files.siblings(path))) {
    let meta: Awaited<ReturnType<typeof firstLine>>;
    try {
      meta = await firstLine(files, other, maxLineBytes);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      log.report(
        'segment_unreadable',
        'warning',
        other,
        undefined,
        `looks like a segment but cannot be read (${why})`,
      );
      continue;
    }
    if (meta?.type === 'meta' && meta.traceId === traceId) {
      found.push({ file: other, segment: meta.segment ?? 0, meta });
    }
  }
  const segments = planSegments(found, log);
  return { meta: segments[0]?.meta ?? first, segments };
}

/**
 * Streams the record and end lines of the segments in order. Later segments' meta lines are not yielded (their
 * boundary shows as a change of `entry.segment`); a line without `seq` gets the previous seq + 1.
 */
export async function* nativeEntries(
  files: TraceFiles,
  segments: readonly TraceSegment[],
  log: DiagnosticLog,
  maxLineBytes?: number,
): AsyncGenerator<TraceEntry> {
  for await (const batch of nativeBatches(files, segments, log, maxLineBytes)) yield* batch;
}

/** {@link nativeEntries} a chunk of the file at a time; a batch may be empty. */
export async function* nativeBatches(
  files: TraceFiles,
  segments: readonly TraceSegment[],
  log: DiagnosticLog,
  maxLineBytes?: number,
  lineText = false,
  scanners: Pick<ReadOptions, 'scan' | 'scanSpan'> = {},
): AsyncGenerator<TraceEntry[]> {
  const { scan, scanSpan } = scanners;
  let lastSeq = 0;
  let seqWarned = false;
  let ended = false;
  let lastFile = segments[0]?.file ?? '';
  for (const seg of segments) {
    lastFile = seg.file;
    let first = true;
    const options: ReadOptions =
      maxLineBytes === undefined
        ? { file: seg.file, log, lineText, scan, scanSpan }
        : { file: seg.file, log, maxLineBytes, lineText, scan, scanSpan };
    for await (const lines of readSegmentBatches(files.read(seg.file), options, seg.segment)) {
      const batch: TraceEntry[] = [];
      for (const entry of lines) {
        const { line, lineNo } = entry;
        const isFirst = first;
        first = false;
        if (line.type === 'meta') {
          if (!isFirst) {
            log.report(
              'unexpected_meta',
              'warning',
              seg.file,
              lineNo,
              'a second meta line (concatenated traces?); skipped',
            );
          }
          continue;
        }
        if (line.type === 'end') {
          ended = true;
          batch.push(entry as TraceEntry);
          continue;
        }
        ended = false;
        let record: RecordLine = line;
        if (record.seq === undefined) {
          // Keep `seq` right after `t`, where tapedeck writes it, so converted files read naturally.
          const { t, ...rest } = record;
          record = { t, seq: lastSeq + 1, ...rest } as RecordLine;
        } else if (record.seq <= lastSeq && !seqWarned) {
          seqWarned = true;
          log.report(
            'seq_order',
            'warning',
            seg.file,
            lineNo,
            `seq ${record.seq} does not follow ${lastSeq} (reported once)`,
          );
        }
        lastSeq = record.seq ?? lastSeq;
        // The reader's own fresh object: it becomes the entry as it is.
        entry.line = record;
        batch.push(entry as TraceEntry);
      }
      yield batch;
    }
  }
  if (!ended) {
    log.report(
      'missing_end',
      'warning',
      lastFile,
      undefined,
      'no end line: the recorder stopped without finishing (crashed or killed); read as far as it goes',
    );
  }
}

/** The first decodable line, read with a throwaway log: real problems are reported when the lines are read. */
async function firstLine(files: TraceFiles, path: string, maxLineBytes?: number) {
  const log = new DiagnosticLog('lenient');
  const options = maxLineBytes === undefined ? { file: path, log } : { file: path, log, maxLineBytes };
  return (await readFirstLine(files.read(path), options))?.line;
}

function stemOf(path: string): string {
  const name = splitPath(path).name;
  const dot = name.indexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}
