import { toHar } from 'mcp-tapedeck/redact';
import {
  type EndLine,
  type MetaLine,
  type RecordLine,
  type TraceEntry,
  toTapedeck,
} from 'mcp-tapedeck/trace';
import type { Row } from './rows.js';

/**
 * What the viewer shows, written out: the rows the search and filters kept, as a tapedeck trace (JSONL, which
 * every tapedeck command and mcp-tape reader opens) or, for an HTTP recording, as a HAR file (for browser developer
 * tools and HTTP debuggers). One file per open trace that has rows in the view.
 */

/** A file to hand the user. */
export interface ExportFile {
  name: string;
  type: string;
  text: string;
}

/** The part of an open trace an export reads. */
export interface ExportSource {
  index: number;
  /** The trace's name (its file name). */
  name: string;
  meta: MetaLine;
  /** Every row of the trace, for the lines of HTTP exchanges the view touches. */
  rows: readonly Row[];
}

/** The rows of each source, in the order they are shown. */
function bySource(rows: readonly Row[]): Map<number, Row[]> {
  const groups = new Map<number, Row[]>();
  for (const row of rows) {
    const list = groups.get(row.src);
    if (list) list.push(row);
    else groups.set(row.src, [row]);
  }
  return groups;
}

/** A file name from a trace's name: its stem, then what the export is. */
export function exportName(name: string, suffix: string, extension: string): string {
  const stem = name.replace(/\.(jsonl|ndjson|json|har)$/i, '') || 'trace';
  return `${stem}-${suffix}.${extension}`;
}

/** The lines of some rows, each once (a batch gives a row per item, all of one line), in row order. */
function linesOf(rows: readonly Row[]): (RecordLine | EndLine)[] {
  const seen = new Set<RecordLine | EndLine>();
  const out: (RecordLine | EndLine)[] = [];
  for (const row of rows) {
    if (seen.has(row.line)) continue;
    seen.add(row.line);
    out.push(row.line);
  }
  return out;
}

async function collect(meta: MetaLine, lines: readonly (RecordLine | EndLine)[]): Promise<string> {
  const parts: string[] = [];
  const trace = {
    meta,
    lines: async function* (): AsyncGenerator<TraceEntry> {
      for (const line of lines) yield { line, file: '', lineNo: 0, segment: 0 };
    },
  };
  for await (const text of toTapedeck(trace)) parts.push(text);
  return parts.join('');
}

/**
 * The shown rows as tapedeck JSONL, a file per trace: its meta line, the rows' lines in order, and an end line
 * where the trace has one (without its counts, which were the whole trace's).
 *
 * @example const [file] = await exportJsonl(sources, rows); file.name // → 'calls-filtered.jsonl'
 */
export async function exportJsonl(
  sources: readonly ExportSource[],
  rows: readonly Row[],
  suffix = 'filtered',
): Promise<ExportFile[]> {
  const files: ExportFile[] = [];
  for (const [src, shown] of bySource(rows)) {
    const source = sources.find((s) => s.index === src);
    if (!source) continue;
    const lines: (RecordLine | EndLine)[] = linesOf(shown).filter((line) => line.type !== 'end');
    const end = source.rows.find((row) => row.kind === 'end')?.line as EndLine | undefined;
    if (end) {
      const { counts: _counts, ...rest } = end;
      lines.push(rest as EndLine);
    }
    files.push({
      name: exportName(source.name, suffix, 'jsonl'),
      type: 'application/x-ndjson',
      text: await collect(source.meta, lines),
    });
  }
  return files;
}

/** The HTTP exchange a line travelled on: its stream, else its connection. */
function exchangeKey(row: Row): string | undefined {
  const line = row.line as { stream?: unknown; conn?: unknown };
  if (typeof line.stream === 'string') return `s:${line.stream}`;
  return typeof line.conn === 'string' ? `c:${line.conn}` : undefined;
}

/**
 * The shown rows as HAR, a file per HTTP trace: every HTTP exchange a shown row travelled on, whole (its request
 * and response heads and every message of its bodies), redacted by the built-in rules as `tapedeck convert --to
 * har` does, so an imported capture loses its credentials too. Traces without HTTP are named in `skipped`.
 *
 * @example const { files, skipped } = await exportHar(sources, rows);
 */
export async function exportHar(
  sources: readonly ExportSource[],
  rows: readonly Row[],
  suffix = 'filtered',
): Promise<{ files: ExportFile[]; skipped: string[] }> {
  const files: ExportFile[] = [];
  const skipped: string[] = [];
  for (const [src, shown] of bySource(rows)) {
    const source = sources.find((s) => s.index === src);
    if (!source) continue;
    const keys = new Set(shown.map(exchangeKey).filter((k) => k !== undefined));
    const lines = linesOf(
      source.rows.filter((row) => row.kind !== 'end' && keys.has(exchangeKey(row) ?? '')),
    );
    if (!lines.some((line) => line.type === 'http')) {
      skipped.push(source.name);
      continue;
    }
    const trace = {
      meta: source.meta,
      lines: async function* (): AsyncGenerator<TraceEntry> {
        for (const line of lines) yield { line, file: '', lineNo: 0, segment: 0 };
      },
    };
    files.push({
      name: exportName(source.name, suffix, 'har'),
      type: 'application/json',
      text: await toHar(trace, source.name),
    });
  }
  return { files, skipped };
}
