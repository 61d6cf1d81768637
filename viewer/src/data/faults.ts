import type { Exchange, RpcId } from 'mcp-tapedeck/trace';
import type { Row } from './rows.js';

/**
 * The calls a recording's injected faults were about. A `fault` event line names its request by id (and
 * connection, over HTTP) right after the request's own line; the exchange of the latest such request in the same
 * trace gets the mark. The trace holds what the server answered; the mark says what the client got instead.
 */

export interface FaultMark {
  /** A few words: what the client got (`error -32603`, `dropped`, `held 250ms` …). */
  label: string;
  /** The rule as written (`error=-32603@tools/call:search#2`). */
  rule: string;
}

/**
 * Every exchange a fault event names, with its marks, from the rows of the open traces.
 *
 * @example faultMarks(model.rows()).get(row.exchange!) // → [{ label: 'error -32603', rule: 'error=-32603#2' }]
 */
export function faultMarks(rows: readonly Row[]): Map<Exchange, FaultMark[]> {
  const marks = new Map<Exchange, FaultMark[]>();
  const latest = new Map<string, Exchange>();
  for (const row of rows) {
    if (row.kind === 'request' && row.exchange?.dir === 'in') {
      latest.set(key(row.src, row.exchange.conn, row.exchange.id), row.exchange);
      continue;
    }
    if (row.kind !== 'event') continue;
    const line = row.line as { name?: unknown; id?: unknown; conn?: unknown };
    if (line.name !== 'fault' || (typeof line.id !== 'string' && typeof line.id !== 'number')) continue;
    const exchange = latest.get(key(row.src, typeof line.conn === 'string' ? line.conn : undefined, line.id));
    if (exchange === undefined) continue;
    const list = marks.get(exchange) ?? [];
    list.push(faultMark(row.line as unknown as Record<string, unknown>));
    marks.set(exchange, list);
  }
  return marks;
}

/**
 * The mark for one `fault` event line.
 *
 * @example faultMark({ name: 'fault', kind: 'latency', delayMs: 250, fault: 'latency=250' }) // → { label: 'held 250ms', rule: 'latency=250' }
 */
export function faultMark(line: Record<string, unknown>): FaultMark {
  const rule = typeof line.fault === 'string' ? line.fault : String(line.kind);
  const labels: Record<string, string> = {
    latency: `held ${String(line.delayMs ?? '?')}ms`,
    error: `error ${String(line.code ?? '')}`.trim(),
    'tool-error': 'tool error',
    drop: 'dropped',
    disconnect: 'disconnected',
    malformed: 'malformed',
    duplicate: 'sent twice',
    'slow-stream': `${String(line.bytesPerSecond ?? '?')} B/s`,
  };
  return { label: labels[String(line.kind)] ?? String(line.kind), rule };
}

function key(src: number, conn: string | undefined, id: RpcId): string {
  return `${src}\u0000${conn ?? ''}\u0000${typeof id}\u0000${id}`;
}
