import { realScheduler, type Scheduler } from '../base/scheduler.js';
import { type FaultOptions, faultPlan } from '../faults/options.js';
import type { FaultDecision, FaultPlan } from '../faults/plan.js';
import { type FaultRecord, faultRecords } from '../faults/records.js';
import { armTimedFaults } from '../faults/timed.js';
import { classifyMessage, idKey, isObject, type RpcId } from '../trace/jsonrpc.js';
import type { Json } from '../trace/types.js';

/**
 * What the recording proxies share about faults: requests decided as they pass to the live server, decisions kept
 * until their answers come back, by scope (a session, or '' for a stdio pipe) and id. A batch is forwarded
 * without faults: its answers are one message, which no decision about one request can change alone.
 */

/** What one client message brought: the faults decided (to record), and whether the connection must go. */
export interface Arrival {
  records: FaultRecord[];
  disconnect: boolean;
}

const NOTHING: Arrival = { records: [], disconnect: false };

export class FaultGate {
  readonly scheduler: Scheduler;
  private readonly waiting = new Map<string, FaultDecision>();
  private readonly perScope = new Map<string, number>();

  constructor(
    readonly plan: FaultPlan,
    scheduler: Scheduler = realScheduler,
  ) {
    this.scheduler = scheduler;
    plan.start();
  }

  /** Decides every request of one client message sent in `scope`. */
  arrive(scope: string, raw: Json): Arrival {
    const item = classifyMessage(raw);
    if (item.kind !== 'request') return NOTHING;
    const request = { method: item.method, params: item.params };
    const decision = this.plan.decide(request);
    if (decision === undefined) return NOTHING;
    const records = faultRecords(decision, request, item.id, this.plan.seed);
    if (decision.action?.kind === 'disconnect') return { records, disconnect: true };
    this.waiting.set(key(scope, item.id), decision);
    this.perScope.set(scope, (this.perScope.get(scope) ?? 0) + 1);
    return { records, disconnect: false };
  }

  /** True when some answer in `scope` is still awaited by a decision (so answers must be read). */
  expecting(scope: string): boolean {
    return (this.perScope.get(scope) ?? 0) > 0;
  }

  /** The decision waiting for the answer `message` in `scope`, taken off the list; undefined for anything else. */
  take(scope: string, message: Json): { decision: FaultDecision; id: RpcId } | undefined {
    if (!isObject(message) || 'method' in message) return undefined;
    const id = message.id;
    if (typeof id !== 'string' && typeof id !== 'number') return undefined;
    const decision = this.waiting.get(key(scope, id));
    if (decision === undefined) return undefined;
    this.waiting.delete(key(scope, id));
    this.perScope.set(scope, (this.perScope.get(scope) ?? 1) - 1);
    return { decision, id };
  }
}

function key(scope: string, id: RpcId): string {
  return `${scope}\u0000${idKey(id)}`;
}

/**
 * The gate for `options`, with its timed faults armed (each told to `onTimed`), or undefined when no fault is
 * asked for. Call `disarm()` when the session is over.
 *
 * @example const gate = openFaultGate(options, (record) => { trace(record); cutEverything(); });
 */
export function openFaultGate(
  options: FaultOptions,
  onTimed: (record: FaultRecord) => void,
  scheduler: Scheduler = realScheduler,
): (FaultGate & { disarm(): void }) | undefined {
  const plan = faultPlan(options, scheduler);
  if (plan === undefined) return undefined;
  const gate = new FaultGate(plan, scheduler);
  return Object.assign(gate, { disarm: armTimedFaults(plan, onTimed, scheduler) });
}

/**
 * The JSON a piece of text holds, or undefined (a banner, a cut-off line).
 *
 * @example parseJson(Buffer.from('{"id":1}\n')) // → { id: 1 }
 */
export function parseJson(bytes: Uint8Array | string): Json | undefined {
  try {
    return JSON.parse(typeof bytes === 'string' ? bytes : new TextDecoder().decode(bytes)) as Json;
  } catch {
    return undefined;
  }
}
