import { TapedeckError } from '../../base/errors.js';
import type { Scheduler } from '../../base/scheduler.js';
import { deliverAnswer } from '../../faults/deliver.js';
import { describeUnmatched, unmatchedRules } from '../../faults/match.js';
import { type FaultOptions, faultPlan } from '../../faults/options.js';
import type { FaultDecision, FaultPlan } from '../../faults/plan.js';
import { type FaultRecord, faultRecords } from '../../faults/records.js';
import { classifyMessage, idKey, isObject, type JsonObject, type RpcId } from '../../trace/jsonrpc.js';
import type { Json } from '../../trace/types.js';
import type { Cassette } from '../cassette/types.js';
import type { ReplayChannel } from './channel.js';

/**
 * Faults on the replay side: a decorator between the engine (and its fallbacks) and a front door's channel. A
 * request is decided as it arrives; its answer, when the engine sends it, is carried out as decided through what
 * the front door can do beyond sending a message (a {@link FaultableChannel}). With no faults given, front doors
 * do not put it in the path at all.
 */

/** A front door's channel, with what faults need of its wire. */
export interface FaultableChannel extends ReplayChannel {
  /** Text that is not JSON, in the place `message` would have gone. */
  sendText(message: JsonObject, text: string): void;
  /** `message`, its bytes trickling out at `bytesPerSecond`. */
  sendSlowly(message: JsonObject, bytesPerSecond: number): void;
  /** Closes the connection the current request came on (or every one, outside a request: a timed fault). */
  disconnect(): void;
}

export interface ReplayFaultOptions {
  scheduler: Scheduler;
  /** Told of every fault as it is injected. */
  onFault: (record: FaultRecord) => void;
  /** The client's own id for an id the front door rewrote (HTTP tags ids per session). */
  liveId?: ((id: RpcId) => RpcId) | undefined;
  /** The message as the client would get it (ids restored), for text made from it. */
  wireForm?: ((message: JsonObject) => JsonObject) | undefined;
}

/**
 * @example
 * const channel = withFaults(stdioFaultable, plan, { scheduler: realScheduler, onFault: (r) => faults.push(r) });
 * const engine = new ReplayEngine(cassette, withFallbacks(channel, cassette));
 */
export function withFaults(
  channel: FaultableChannel,
  plan: FaultPlan,
  options: ReplayFaultOptions,
): ReplayChannel {
  const { scheduler, onFault } = options;
  const liveId = options.liveId ?? ((id: RpcId) => id);
  const wireForm = options.wireForm ?? ((message: JsonObject) => message);
  /** Decisions waiting for their answer, by the id key the engine answers with. */
  const waiting = new Map<string, FaultDecision>();
  plan.start();

  /** Decides every request of a client message; false when the message must not reach the engine. */
  const arrive = (message: Json): boolean => {
    const item = classifyMessage(message);
    const items = item.kind === 'batch' ? item.items : [item];
    let disconnect = false;
    for (const one of items) {
      if (one.kind !== 'request') continue;
      const request = { method: one.method, params: one.params };
      const decision = plan.decide(request);
      if (decision === undefined) continue;
      for (const record of faultRecords(decision, request, liveId(one.id), plan.seed)) onFault(record);
      if (decision.action?.kind === 'disconnect') disconnect = true;
      else waiting.set(idKey(one.id), decision);
    }
    if (disconnect) channel.disconnect();
    return !disconnect;
  };

  return {
    onMessage(handler) {
      channel.onMessage((message) => {
        if (arrive(message)) handler(message);
      });
    },
    send(message) {
      const id = isObject(message) && !('method' in message) ? message.id : undefined;
      const decision =
        waiting.size > 0 && (typeof id === 'string' || typeof id === 'number')
          ? waiting.get(idKey(id))
          : undefined;
      if (decision === undefined || !isObject(message)) {
        channel.send(message);
        return;
      }
      waiting.delete(idKey(id as RpcId));
      deliverAnswer(
        decision,
        id as RpcId,
        {
          pass: () => channel.send(message),
          replace: (other) => channel.send(other),
          sendText: (text) => channel.sendText(message, text),
          text: () => JSON.stringify(wireForm(message)),
          trickle: (rate) => channel.sendSlowly(message, rate),
        },
        scheduler,
      );
    },
  };
}

/** Methods replay answers without a recording (see fallback.ts): a MATCH may name them. */
const ANSWERED_WITHOUT_RECORDING = ['ping', 'logging/setLevel', 'server/discover'];

/**
 * The fault plan for a replay of `cassette`, or undefined when no fault is given. A MATCH that names nothing the
 * cassette holds (a tool it never calls …) is a usage error: the fault could never fire.
 *
 * @example const plan = replayFaultPlan(cassette, { faults: ['error@tools/call:echo'], seed: 1 }, realScheduler);
 */
export function replayFaultPlan(
  cassette: Cassette,
  options: FaultOptions,
  scheduler: Scheduler,
): FaultPlan | undefined {
  const plan = faultPlan(options, scheduler);
  if (plan === undefined) return undefined;
  const requests = cassette.exchanges.map((x) => ({ method: x.method, params: x.request.params }));
  const [unmatched] = unmatchedRules(plan.rules, requests, ANSWERED_WITHOUT_RECORDING);
  if (unmatched !== undefined)
    throw new TapedeckError('usage', describeUnmatched(unmatched, requests, `fault '${unmatched.source}'`));
  return plan;
}
