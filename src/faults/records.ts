import { formatId, type RpcId } from '../trace/jsonrpc.js';
import type { Json, RecordBody } from '../trace/types.js';
import { type FaultRequest, namedTarget } from './match.js';
import type { AppliedFault, FaultDecision } from './plan.js';
import type { FaultKind, FaultRule } from './spec.js';

/**
 * What was injected, as reports list it and as a trace's `fault` event line carries it:
 * `{"type":"event","name":"fault","kind":"error","fault":"error=-32603@tools/call#2","id":3,"method":"tools/call",
 * "target":"echo","code":-32603}`. The trace keeps what the server really sent; the event says what the client
 * got instead, and names the request by id (and connection, over HTTP), so readers can mark the call.
 */

export interface FaultRecord {
  kind: FaultKind;
  /** The rule as written. */
  fault: string;
  /** The request it hit (absent for a timed disconnect). */
  id?: RpcId | undefined;
  method?: string | undefined;
  /** The tool, prompt or uri the request was about. */
  target?: string | undefined;
  /** Which request matching the rule it was. */
  nth?: number | undefined;
  delayMs?: number | undefined;
  code?: number | undefined;
  bytesPerSecond?: number | undefined;
  /** The seed, when a draw decided (a %PERCENT or a jitter). */
  seed?: number | undefined;
  /** A timed fault: ms after the start. */
  atMs?: number | undefined;
}

/**
 * One record per rule a decision applied.
 *
 * @example faultRecords(decision, { method: 'tools/call', params: { name: 'echo' } }, 3, plan.seed)
 */
export function faultRecords(
  decision: FaultDecision,
  request: FaultRequest,
  id: RpcId | undefined,
  seed: number,
): FaultRecord[] {
  const target = namedTarget(request);
  return decision.applied.map((applied) => recordOf(applied, request.method, target, id, seed));
}

function recordOf(
  applied: AppliedFault,
  method: string,
  target: string | undefined,
  id: RpcId | undefined,
  seed: number,
): FaultRecord {
  const { rule, nth } = applied;
  const { action } = rule;
  const record: FaultRecord = { kind: action.kind, fault: rule.source };
  if (id !== undefined) record.id = id;
  record.method = method;
  if (target !== undefined) record.target = target;
  record.nth = nth;
  if (action.kind === 'latency') record.delayMs = applied.delayMs;
  if (action.kind === 'error') record.code = action.code;
  if (action.kind === 'slow-stream') record.bytesPerSecond = action.bytesPerSecond;
  if (rule.percent !== undefined || (action.kind === 'latency' && action.jitterMs > 0)) record.seed = seed;
  return record;
}

/** The record of a timed fault that happened at `atMs`. */
export function timedRecord(rule: FaultRule, atMs: number): FaultRecord {
  return { kind: rule.action.kind, fault: rule.source, atMs };
}

/**
 * The `event` line body for a record (the sink stamps `seq`); `conn` names the HTTP connection of the request.
 *
 * @example sink.append(faultEvent(record, timestamp()))
 */
export function faultEvent(record: FaultRecord, t: string, conn?: string): RecordBody {
  const body: { [key: string]: Json } = { t, type: 'event', name: 'fault' };
  for (const [key, value] of Object.entries(record)) if (value !== undefined) body[key] = value as Json;
  if (conn !== undefined) body.conn = conn;
  return body as unknown as RecordBody;
}

/**
 * One phrase for a record, as reports show it.
 *
 * @example describeFault({ kind: 'error', fault: 'error=-32603', id: 3, method: 'tools/call', target: 'echo', code: -32603 }) // → 'error -32603 on tools/call echo (id 3)'
 */
export function describeFault(record: FaultRecord): string {
  const what =
    record.kind === 'latency'
      ? `latency ${record.delayMs ?? 0}ms`
      : record.kind === 'error'
        ? `error ${record.code}`
        : record.kind === 'slow-stream'
          ? `slow-stream ${record.bytesPerSecond} B/s`
          : record.kind;
  if (record.method === undefined) return `${what} at +${((record.atMs ?? 0) / 1000).toFixed(3)}s`;
  const target = record.target === undefined ? '' : ` ${record.target}`;
  const id = record.id === undefined ? '' : ` (id ${formatId(record.id)})`;
  return `${what} on ${record.method}${target}${id}`;
}
