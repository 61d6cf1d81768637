import { encodeLine } from '../trace/encode.js';
import type { RecordLine } from '../trace/types.js';
import type { LineColumns } from './columns.js';
import type { LineBatch, StoredLine, WriteMode } from './store.js';

/**
 * What one batch changes, worked out before any engine writes it: which lines are stored under which `seq` (a
 * line without one, or not above the last, is numbered after it on upload and skipped as a retry on append), the
 * counters of the trace and its terms. Both engines write exactly this, so they number and count alike.
 */
export interface BatchPlan {
  rows: { seq: number; text: string; columns: LineColumns }[];
  stored: StoredLine[];
  duplicates: number;
  last: number;
  bytes: number;
  msgIn: number;
  msgOut: number;
  errors: number;
  server: string | null;
  /** Term counts: kind, value, count. */
  terms: [string, string, number][];
}

/** Plans `batch` on a trace whose last stored `seq` is `last`. */
export function planBatch(batch: LineBatch, mode: WriteMode, last: number): BatchPlan {
  const plan: BatchPlan = {
    rows: [],
    stored: [],
    duplicates: 0,
    last,
    bytes: 0,
    msgIn: 0,
    msgOut: 0,
    errors: 0,
    server: null,
    terms: [],
  };
  const terms = new Map<string, number>();
  for (const record of batch.records) {
    let { text } = record;
    let seq = record.line.seq;
    if (seq === undefined || seq <= plan.last) {
      if (mode === 'append' && seq !== undefined) {
        plan.duplicates += 1;
        continue;
      }
      seq = plan.last + 1;
      text = renumber(record.line, seq);
    }
    plan.last = seq;
    const c = record.columns;
    plan.rows.push({ seq, text, columns: c });
    plan.stored.push({ seq, text });
    plan.bytes += text.length;
    if (c.kind === 'message') {
      if (c.dir === 'in') plan.msgIn += 1;
      else plan.msgOut += 1;
    }
    if (c.isError) plan.errors += 1;
    plan.server ??= c.server;
    // Requests and notifications count once each; a response carries its request's method and tool.
    if (c.role !== 'response') {
      if (c.tool !== null) count(terms, 'tool', c.tool);
      if (c.method !== null) count(terms, 'method', c.method);
    }
    if (c.server !== null) count(terms, 'server', c.server);
  }
  for (const [key, value] of terms) {
    const cut = key.indexOf('\u0000');
    plan.terms.push([key.slice(0, cut), key.slice(cut + 1), value]);
  }
  return plan;
}

/** The columns a meta line sets on its trace. */
export function metaColumns(
  meta: NonNullable<LineBatch['meta']>,
  label: string,
): {
  label: string;
  transport: string | null;
  startedAt: string;
  startedMs: number | null;
  server: string | null;
} {
  const m = meta.line;
  const started = Date.parse(m.startedAt);
  return {
    // A label given with the upload wins over the trace's own.
    label: label !== '' ? label : m.label,
    transport: typeof m.transport === 'string' ? m.transport : null,
    startedAt: m.startedAt,
    startedMs: Number.isNaN(started) ? null : started,
    server: typeof m.server === 'string' ? m.server : null,
  };
}

function count(terms: Map<string, number>, kind: string, value: string): void {
  const key = `${kind}\u0000${value}`;
  terms.set(key, (terms.get(key) ?? 0) + 1);
}

/** The line with a new `seq`, kept right after `t` where tapedeck writes it. */
function renumber(line: RecordLine, seq: number): string {
  const { t, seq: _old, ...rest } = line;
  const text = encodeLine({ t, seq, ...rest } as RecordLine);
  return text.slice(0, -1);
}
