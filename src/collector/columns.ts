import { idKey, messageItems, type RpcItem, responseOutcome, toolName } from '../trace/jsonrpc.js';
import type { RecordLine } from '../trace/types.js';

/**
 * The searchable columns of one stored line. A response gets the method and tool of the request it answers
 * (paired by server, connection and id, in the opposite direction), so "failed calls of tool X" is one query.
 */
export interface LineColumns {
  kind: 'message' | 'text' | 'stderr' | 'http' | 'event';
  dir: 'in' | 'out' | null;
  method: string | null;
  tool: string | null;
  server: string | null;
  /** What the line's (first) JSON-RPC message is; null for other lines. */
  role: 'request' | 'notification' | 'response' | null;
  /** A JSON-RPC error response or a tool result with `isError`. */
  isError: boolean;
}

/** Requests waiting for their answers; past this the oldest are forgotten (their answers stay unlabelled). */
const MAX_OPEN_REQUESTS = 10_000;

/**
 * Derives the columns of each line of one trace, in order. Holds the open requests of that trace, so one
 * indexer lives as long as its trace is being written.
 *
 * @example const columns = new LineIndexer().columns(line) // { kind: 'message', method: 'tools/call', tool: 'echo', … }
 */
export class LineIndexer {
  private readonly open = new Map<string, { method: string; tool: string | null }>();

  columns(line: RecordLine): LineColumns {
    const server = typeof line.server === 'string' ? line.server : null;
    switch (line.type) {
      case undefined:
        return this.message(line.raw, line.dir, server, typeof line.conn === 'string' ? line.conn : '');
      case 'text':
        return { kind: 'text', dir: line.dir, method: null, tool: null, server, role: null, isError: false };
      case 'http':
        return { kind: 'http', dir: line.dir, method: null, tool: null, server, role: null, isError: false };
      case 'stderr':
        return { kind: 'stderr', dir: null, method: null, tool: null, server, role: null, isError: false };
      default:
        return { kind: 'event', dir: null, method: null, tool: null, server, role: null, isError: false };
    }
  }

  private message(
    raw: Parameters<typeof messageItems>[0],
    dir: 'in' | 'out',
    server: string | null,
    conn: string,
  ): LineColumns {
    const columns: LineColumns = {
      kind: 'message',
      dir,
      method: null,
      tool: null,
      server,
      role: null,
      isError: false,
    };
    const base = `${server ?? ''}\u0000${conn}\u0000`;
    for (const item of messageItems(raw)) this.item(item, dir, base, columns);
    return columns;
  }

  /** Fills `columns` from one item; in a batch the first method and tool win, any error marks the line. */
  private item(item: RpcItem, dir: 'in' | 'out', base: string, columns: LineColumns): void {
    if (item.kind !== 'invalid') columns.role ??= item.kind;
    if (item.kind === 'request') {
      const tool = toolName(item) ?? null;
      columns.method ??= item.method;
      columns.tool ??= tool;
      if (this.open.size >= MAX_OPEN_REQUESTS) {
        const oldest = this.open.keys().next().value;
        if (oldest !== undefined) this.open.delete(oldest);
      }
      this.open.set(`${base}${dir}\u0000${idKey(item.id)}`, { method: item.method, tool });
    } else if (item.kind === 'notification') {
      columns.method ??= item.method;
    } else if (item.kind === 'response') {
      if (item.id !== null) {
        const key = `${base}${dir === 'in' ? 'out' : 'in'}\u0000${idKey(item.id)}`;
        const request = this.open.get(key);
        if (request !== undefined) {
          this.open.delete(key);
          columns.method ??= request.method;
          columns.tool ??= request.tool;
        }
      }
      const outcome = responseOutcome(item);
      if (outcome === 'error' || outcome === 'tool_error') columns.isError = true;
    }
  }
}
