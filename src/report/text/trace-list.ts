import { relative } from 'node:path';
import { formatBytes } from '../../base/units.js';
import type { ListedTrace } from '../../sink/trace-list.js';
import { palette } from './color.js';
import { type Column, formatDuration, renderTable } from './table.js';
import { fitLine } from './wrap.js';

/** `tapedeck ls` output: a table for people, one line per trace for a pipe, or JSON for scripts. */

const COLUMNS: readonly Column[] = [
  { header: 'started (UTC)' },
  { header: 'label', wrap: true },
  { header: 'transport' },
  { header: 'duration', align: 'right' },
  { header: 'messages', align: 'right' },
  { header: 'errors', align: 'right' },
  { header: 'size', align: 'right' },
  { header: 'file', wrap: true },
];

/**
 * The listing as a table, newest first. A trace without an end line (still being recorded, or its recorder was
 * killed) shows its duration so far with a `…`; what could not be known without reading a big trace whole is `?`.
 *
 * @example renderTraceList(listTraces('./traces'), { dir: './traces', color: false, more: 0 })
 */
export function renderTraceList(
  traces: readonly ListedTrace[],
  options: { dir: string; color: boolean; more: number; width?: number | undefined },
): string {
  const c = palette(options.color);
  const rows = traces.map((trace) => {
    const duration = trace.durationMs === undefined ? '?' : formatDuration(trace.durationMs);
    return [
      trace.meta.startedAt.replace('T', ' ').replace(/\.\d+Z$|Z$/, ''),
      trace.meta.label,
      trace.meta.transport ?? '?',
      trace.end === undefined ? `${duration}…` : duration,
      trace.messages === undefined ? '?' : String(trace.messages),
      trace.errors === undefined ? '?' : trace.errors > 0 ? c.red(String(trace.errors)) : '0',
      formatBytes(trace.size),
      c.dim(relative(options.dir, trace.path)),
    ];
  });
  const notes: string[] = [];
  if (traces.some((trace) => trace.end === undefined))
    notes.push('…: no end line yet (still recording, or the recorder was stopped by force)');
  if (traces.some((trace) => trace.messages === undefined || trace.errors === undefined))
    notes.push(
      '?: not in the trace’s end line, and the trace is too big to count quickly (tapedeck stats counts)',
    );
  if (options.more > 0)
    notes.push(`${options.more} older trace${options.more === 1 ? '' : 's'} not shown (--all)`);
  const fitted = notes.flatMap((note) => fitLine(note, options.width ?? Number.POSITIVE_INFINITY, 3));
  return (
    renderTable(COLUMNS, rows, { width: options.width }) + fitted.map((note) => `${c.dim(note)}\n`).join('')
  );
}

/**
 * The listing for a pipe: one line per trace, newest first, tab-separated, no header — the fields of `ls --json`
 * in its order: startedAt, label, transport, durationMs, ended, messages, errors, size (bytes), path (absolute).
 * What is not known is `-`; a tab or line break inside a label becomes a space, so a line is always one trace.
 *
 * @example renderTraceLines(listTraces('./traces')) // '2026-03-02T09:30:00.000Z\teverything\tstdio\t835\ttrue\t8\t0\t11674\t/…/x.jsonl\n'
 */
export function renderTraceLines(traces: readonly ListedTrace[]): string {
  const field = (value: string | number | boolean | null) =>
    value === null ? '-' : String(value).replace(/[\t\r\n]+/g, ' ');
  return renderTraceListRows(traces)
    .map(
      (row) =>
        `${[row.startedAt, row.label, row.transport, row.durationMs, row.ended, row.messages, row.errors, row.size, row.path].map(field).join('\t')}\n`,
    )
    .join('');
}

/** One trace as `ls --json` prints it: a stable shape for scripts. */
export interface ListedTraceJson {
  path: string;
  files: string[];
  startedAt: string;
  label: string;
  transport: string | null;
  traceId: string | null;
  durationMs: number | null;
  ended: boolean;
  messages: number | null;
  errors: number | null;
  size: number;
}

/**
 * The listing as JSON, newest first.
 *
 * @example JSON.parse(renderTraceListJson(listTraces('./traces')))[0].path
 */
export function renderTraceListJson(traces: readonly ListedTrace[]): string {
  return `${JSON.stringify(renderTraceListRows(traces), null, 2)}\n`;
}

function renderTraceListRows(traces: readonly ListedTrace[]): ListedTraceJson[] {
  return traces.map((trace) => ({
    path: trace.path,
    files: trace.files,
    startedAt: trace.meta.startedAt,
    label: trace.meta.label,
    transport: trace.meta.transport ?? null,
    traceId: trace.meta.traceId ?? null,
    durationMs: trace.durationMs ?? null,
    ended: trace.end !== undefined,
    messages: trace.messages ?? null,
    errors: trace.errors ?? null,
    size: trace.size,
  }));
}
