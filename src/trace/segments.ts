import type { DiagnosticLog } from './reader.js';
import type { MetaLine } from './types.js';

/**
 * Rotation naming and stitching. The recorder writes `name.jsonl` (active, newest) and moves older data to
 * `name.1.jsonl`, `name.2.jsonl` …; every segment opens with its own meta line carrying the same `traceId` and its
 * `segment` number (0 = oldest). File numbers shift on every rotation, so order comes from `meta.segment`, never
 * from the file name; the name only says which files might belong together.
 */

/** One file of a (possibly rotated) trace. */
export interface TraceSegment {
  file: string;
  /** `meta.segment`, 0 when the meta has none. */
  segment: number;
  meta: MetaLine;
}

/** A file name taken apart: `trace.3.jsonl` → `{ stem: 'trace', index: 3, ext: '.jsonl' }`. */
export interface SegmentName {
  stem: string;
  /** The rotation number; undefined for the active file `trace.jsonl`. */
  index?: number;
  ext: string;
}

/**
 * Reads a segment file name. `trace.2026.jsonl` is ambiguous (segment 2026 of `trace`, or its own trace): both
 * readings are returned, and the traceId check in {@link planSegments} keeps only real siblings.
 *
 * @example parseSegmentName('calls.2.jsonl') // → [{ stem: 'calls', index: 2, ext: '.jsonl' }, { stem: 'calls.2', ext: '.jsonl' }]
 */
export function parseSegmentName(fileName: string): SegmentName[] {
  const dot = fileName.lastIndexOf('.');
  if (dot <= 0) return [];
  const ext = fileName.slice(dot);
  const base = fileName.slice(0, dot);
  const readings: SegmentName[] = [];
  const numbered = /^(.+)\.(\d+)$/.exec(base);
  if (numbered) readings.push({ stem: numbered[1]!, index: Number(numbered[2]), ext });
  readings.push({ stem: base, ext });
  return readings;
}

/**
 * The file name of a segment, as the recorder's rotation writes it.
 *
 * @example segmentFileName('calls', 2) // → 'calls.2.jsonl';  segmentFileName('calls') // → 'calls.jsonl'
 */
export function segmentFileName(stem: string, index?: number, ext = '.jsonl'): string {
  return index === undefined ? `${stem}${ext}` : `${stem}.${index}${ext}`;
}

/**
 * `path` with its extension (if any) replaced by `ext`.
 *
 * @example withExtension('rec/s.ndjson', '.jsonl') // → 'rec/s.jsonl'
 */
export function withExtension(path: string, ext: string): string {
  return `${path.replace(/\.[^./\\]*$/, '')}${ext}`;
}

/** Splits a path at its last `/` or `\` (pure, so the viewer can use it too). */
export function splitPath(path: string): { dir: string; name: string } {
  const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return cut === -1 ? { dir: '', name: path } : { dir: path.slice(0, cut + 1), name: path.slice(cut + 1) };
}

/**
 * Of the paths in one folder, those that could be rotation siblings of `path` (not `path` itself).
 *
 * @example siblingCandidates('/t/calls.jsonl', ['/t/calls.1.jsonl', '/t/other.jsonl']) // → ['/t/calls.1.jsonl']
 */
export function siblingCandidates(path: string, folder: readonly string[]): string[] {
  const own = splitPath(path).name;
  const readings = parseSegmentName(own);
  return folder.filter((other) => {
    const name = splitPath(other).name;
    if (name === own) return false;
    return parseSegmentName(name).some((theirs) =>
      readings.some((mine) => mine.stem === theirs.stem && mine.ext === theirs.ext),
    );
  });
}

/**
 * Orders the segments of one trace, oldest first, and reports what is missing: a gap at the start means the oldest
 * segments were deleted by `--max-files`; a gap in the middle means a segment was lost.
 *
 * @example
 * planSegments([{ file: 'c.jsonl', segment: 2, meta }, { file: 'c.1.jsonl', segment: 1, meta }], log)
 * // → [c.1.jsonl, c.jsonl]; log gets "c.jsonl: segment 0 of trace … is missing …"
 */
export function planSegments(found: readonly TraceSegment[], log: DiagnosticLog): TraceSegment[] {
  const ordered = [...found].sort((a, b) => a.segment - b.segment);
  const newest = ordered[ordered.length - 1];
  if (newest === undefined) return ordered;
  const traceId = newest.meta.traceId ?? '?';
  let expected = 0;
  for (const seg of ordered) {
    if (seg.segment < expected) {
      log.report(
        'segment_duplicate',
        'warning',
        seg.file,
        undefined,
        `claims segment ${seg.segment} of trace ${traceId}, like another file; both are read, in file order`,
      );
      continue;
    }
    if (seg.segment > expected) {
      const missing =
        seg.segment - 1 === expected ? `segment ${expected}` : `segments ${expected}-${seg.segment - 1}`;
      const why =
        expected === 0 ? 'the oldest were probably deleted by rotation (--max-files)' : 'a file was lost';
      log.report(
        'segment_gap',
        'warning',
        seg.file,
        undefined,
        `${missing} of trace ${traceId} ${seg.segment - 1 === expected ? 'is' : 'are'} missing (${why}); reading what is left`,
      );
    }
    expected = seg.segment + 1;
  }
  return ordered;
}
