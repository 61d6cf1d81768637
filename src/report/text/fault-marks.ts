import { describeFault, type FaultRecord } from '../../faults/records.js';
import { idKey, type RpcId } from '../../trace/jsonrpc.js';
import type { Exchange } from '../../trace/pairing.js';
import type { EventLine } from '../../trace/types.js';

/**
 * The calls a recording's faults were about, for the timeline: a `fault` event names its request by id (and
 * connection, over HTTP); the request's answer row — or its "never answered" row — is then marked with what the
 * client got instead of what the trace holds.
 */
export class FaultMarks {
  private readonly pending = new Map<string, string[]>();

  /** Reads a `fault` event: its request's row will carry the mark. */
  note(line: EventLine): void {
    const id = line.id;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const key = markKey(typeof line.conn === 'string' ? line.conn : undefined, id);
    const marks = this.pending.get(key) ?? [];
    marks.push(clientGot(line as unknown as FaultRecord));
    this.pending.set(key, marks);
  }

  /** The mark for an exchange's row (taken: a later request with the same id gets its own), or undefined. */
  take(exchange: Exchange): string | undefined {
    if (this.pending.size === 0 || exchange.dir !== 'in') return undefined;
    const key = markKey(exchange.conn, exchange.id);
    const marks = this.pending.get(key);
    if (marks === undefined) return undefined;
    this.pending.delete(key);
    return marks.join(', ');
  }
}

/**
 * What the client got, in a few words, for a fault event.
 *
 * @example faultSummary({ kind: 'error', code: -32603, … }) // → 'client got error -32603 (injected)'
 */
export function faultSummary(line: EventLine): string {
  return `${describeFault(line as unknown as FaultRecord)} (${String(line.fault ?? line.kind)})`;
}

function clientGot(record: FaultRecord): string {
  switch (record.kind) {
    case 'latency':
      return `answer held ${record.delayMs ?? 0}ms`;
    case 'error':
      return `client got error ${record.code}`;
    case 'tool-error':
      return 'client got a tool error';
    case 'drop':
      return 'client never got it';
    case 'disconnect':
      return 'connection cut';
    case 'malformed':
      return 'client got it cut off';
    case 'duplicate':
      return 'client got it twice';
    case 'slow-stream':
      return `client got it at ${record.bytesPerSecond} B/s`;
  }
}

function markKey(conn: string | undefined, id: RpcId): string {
  return `${conn ?? ''}\u0000${idKey(id)}`;
}
