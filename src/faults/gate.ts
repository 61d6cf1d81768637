import { realScheduler, type Scheduler } from '../base/scheduler.js';
import { classifyMessage, idKey, isObject, type JsonObject, type RpcId } from '../trace/jsonrpc.js';
import type { Json } from '../trace/types.js';
import { injectedError, injectedToolError } from './deliver.js';
import type { AnswerAction, FaultDecision, FaultPlan } from './plan.js';
import { type FaultRecord, faultRecords } from './records.js';

/**
 * The one place that decides whether a fault applies to a message, for every front door: the recording proxies
 * (stdio and HTTP), the replay engine's channel and the SDK transport. A client message is decided as it arrives
 * (each request on its own); its decisions wait, by scope (an HTTP session, or '' for one pipe) and id, for the
 * answers they are about.
 *
 * The batch rule: each message of a JSON-RPC batch is judged on its own, going in and coming out. Every request of
 * a batch is decided and counted as if it came alone. A batch of answers is one message on the wire, so what
 * changes one answer is done inside the array — an error or tool error replaces that answer, a drop leaves it out,
 * a duplicate puts it in twice — and what can only be done to the whole message is done to the whole batch: it
 * waits for the longest latency, trickles at the slowest rate, and comes out cut off when any of its answers is
 * malformed. A batch whose every answer is dropped is not sent at all.
 */

/** What one client message brought: the faults decided (to record), and whether the connection must go. */
export interface Arrival {
  records: FaultRecord[];
  disconnect: boolean;
}

/** An answer a decision waited for: the decision to carry out on the message, and what to send in its place. */
export interface Taken {
  decision: FaultDecision;
  /** The answer's id (the first decided answer's, for a batch). */
  id: RpcId;
  /** A batch rebuilt with its answers' own faults done inside it; undefined when the message goes as it came. */
  message?: Json[] | undefined;
}

export interface FaultGateOptions {
  /** The client's own id for an id the front door rewrote (replay over HTTP tags ids per session). */
  liveId?: ((id: RpcId) => RpcId) | undefined;
  /** The clock the front door carries decisions out on (latency, trickles). */
  scheduler?: Scheduler | undefined;
}

const NOTHING: Arrival = { records: [], disconnect: false };

/**
 * @example
 * const gate = new FaultGate(plan);
 * const { records, disconnect } = gate.arrive('', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } });
 * const taken = gate.take('', { jsonrpc: '2.0', id: 1, result: {} }); // → { decision, id: 1 } when a fault applied
 */
export class FaultGate {
  private readonly waiting = new Map<string, FaultDecision>();
  private readonly perScope = new Map<string, number>();
  private readonly liveId: (id: RpcId) => RpcId;
  readonly scheduler: Scheduler;

  constructor(
    readonly plan: FaultPlan,
    options: FaultGateOptions = {},
  ) {
    this.liveId = options.liveId ?? ((id) => id);
    this.scheduler = options.scheduler ?? realScheduler;
  }

  /** Decides every request of one client message sent in `scope` (each request of a batch on its own). */
  arrive(scope: string, raw: Json): Arrival {
    const item = classifyMessage(raw);
    const items = item.kind === 'batch' ? item.items : [item];
    let arrival: Arrival | undefined;
    for (const one of items) {
      if (one.kind !== 'request') continue;
      const request = { method: one.method, params: one.params };
      const decision = this.plan.decide(request);
      if (decision === undefined) continue;
      arrival ??= { records: [], disconnect: false };
      arrival.records.push(...faultRecords(decision, request, this.liveId(one.id), this.plan.seed));
      if (decision.action?.kind === 'disconnect') arrival.disconnect = true;
      else {
        this.waiting.set(key(scope, one.id), decision);
        this.perScope.set(scope, (this.perScope.get(scope) ?? 0) + 1);
      }
    }
    return arrival ?? NOTHING;
  }

  /** True when some answer in `scope` is still awaited by a decision (so answers must be read). */
  expecting(scope: string): boolean {
    return (this.perScope.get(scope) ?? 0) > 0;
  }

  /**
   * The decision waiting for the answer `message` in `scope` (or for answers of a batch), taken off the list;
   * undefined when no decision waits for it.
   */
  take(scope: string, message: Json): Taken | undefined {
    if (!this.expecting(scope)) return undefined;
    if (Array.isArray(message)) return this.takeBatch(scope, message);
    const id = answerId(message);
    const decision = id === undefined ? undefined : this.takeOne(scope, id);
    return decision === undefined ? undefined : { decision, id: id! };
  }

  private takeOne(scope: string, id: RpcId): FaultDecision | undefined {
    const decision = this.waiting.get(key(scope, id));
    if (decision === undefined) return undefined;
    this.waiting.delete(key(scope, id));
    this.perScope.set(scope, (this.perScope.get(scope) ?? 1) - 1);
    return decision;
  }

  /** Each answer of a batch judged on its own; what only the whole message can carry is folded into one decision. */
  private takeBatch(scope: string, batch: Json[]): Taken | undefined {
    const out: Json[] = [];
    let first: RpcId | undefined;
    let delayMs = 0;
    let malformed: AnswerAction | undefined;
    let slowest: Extract<AnswerAction, { kind: 'slow-stream' }> | undefined;
    const applied: FaultDecision['applied'] = [];
    for (const answer of batch) {
      const id = answerId(answer);
      const decision = id === undefined ? undefined : this.takeOne(scope, id);
      if (decision === undefined) {
        out.push(answer);
        continue;
      }
      first ??= id;
      applied.push(...decision.applied);
      delayMs = Math.max(delayMs, decision.delayMs);
      const action = decision.action;
      const source = decision.applied.find((one) => one.rule.action === action)?.rule.source;
      if (action?.kind === 'error') out.push(injectedError(id!, action.code, source ?? 'error'));
      else if (action?.kind === 'tool-error') out.push(injectedToolError(id!, source ?? 'tool-error'));
      else if (action?.kind !== 'drop') out.push(answer);
      if (action?.kind === 'duplicate') out.push(answer);
      if (action?.kind === 'malformed') malformed = action;
      if (
        action?.kind === 'slow-stream' &&
        (slowest === undefined || action.bytesPerSecond < slowest.bytesPerSecond)
      )
        slowest = action;
    }
    if (first === undefined) return undefined;
    const action: AnswerAction | undefined =
      out.length === 0 ? { kind: 'drop' } : (malformed ?? slowest ?? undefined);
    const changed = out.length !== batch.length || out.some((answer, index) => answer !== batch[index]);
    return { decision: { delayMs, action, applied }, id: first, message: changed ? out : undefined };
  }
}

/** The id of an answer (a response or an error), or undefined for anything else. */
function answerId(message: Json): RpcId | undefined {
  if (!isObject(message) || 'method' in message) return undefined;
  const id = (message as JsonObject).id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

function key(scope: string, id: RpcId): string {
  return `${scope}\u0000${idKey(id)}`;
}
