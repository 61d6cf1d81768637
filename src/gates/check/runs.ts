import { classifyItem, isErrorResult, type JsonObject, type RpcId } from '../../trace/jsonrpc.js';
import { parseTime } from '../../trace/time.js';
import type { Json, TraceLine } from '../../trace/types.js';

/** One tools/call of a run, in order. */
export interface ToolCall {
  tool: string;
  args: Json;
  /** The trace line of the request. */
  line: number;
  /** The call failed: a JSON-RPC error or an `isError` result. */
  failed: boolean;
}

/** What an agent did in one recorded run. */
export interface AgentRun {
  file: string;
  calls: ToolCall[];
  /** From the first line's time to the last's. */
  durationMs: number;
  /** JSON-RPC error responses to any request. */
  errors: number;
}

/**
 * Reads a run's tool calls and errors as a trace goes by.
 *
 * @example const reader = new RunReader('run.jsonl'); for (const { line, lineNo } of lines) reader.push(line, lineNo);
 */
export class RunReader {
  private readonly calls: ToolCall[] = [];
  private readonly open = new Map<string, ToolCall | undefined>();
  private first: number | undefined;
  private last: number | undefined;
  private errors = 0;

  constructor(private readonly file: string) {}

  push(line: TraceLine, lineNo: number): void {
    const t = parseTime(line.type === 'meta' ? line.startedAt : line.t);
    if (t !== undefined) {
      this.first ??= t;
      this.last = t;
    }
    if (line.type !== undefined) return;
    const scope = `${String(line.server ?? '')}\u0000${String(line.conn ?? '')}`;
    for (const raw of Array.isArray(line.raw) ? line.raw : [line.raw]) {
      const item = classifyItem(raw);
      if (item.kind === 'request' && line.dir === 'in') {
        let call: ToolCall | undefined;
        if (item.method === 'tools/call' && typeof item.params?.name === 'string') {
          call = {
            tool: item.params.name,
            args: (item.params.arguments ?? {}) as Json,
            line: lineNo,
            failed: false,
          };
          this.calls.push(call);
        }
        this.open.set(key(scope, item.id), call);
      } else if (item.kind === 'response' && line.dir === 'out' && item.id !== null) {
        const k = key(scope, item.id);
        if (!this.open.has(k)) continue;
        const call = this.open.get(k);
        this.open.delete(k);
        if (item.error !== undefined) this.errors += 1;
        if (call !== undefined && (item.error !== undefined || isErrorResult(item.result)))
          call.failed = true;
      }
    }
  }

  result(): AgentRun {
    const durationMs = this.first === undefined || this.last === undefined ? 0 : this.last - this.first;
    return { file: this.file, calls: this.calls, durationMs, errors: this.errors };
  }
}

function key(scope: string, id: RpcId): string {
  return `${scope}\u0000${typeof id}:${String(id)}`;
}

export type { JsonObject };
