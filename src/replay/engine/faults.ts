import { TapedeckError } from '../../base/errors.js';
import type { Scheduler } from '../../base/scheduler.js';
import { deliverAnswer } from '../../faults/deliver.js';
import { FaultGate } from '../../faults/gate.js';
import { describeUnmatched, unmatchedRules } from '../../faults/match.js';
import { type FaultOptions, faultPlan } from '../../faults/options.js';
import type { FaultPlan } from '../../faults/plan.js';
import type { FaultRecord } from '../../faults/records.js';
import type { JsonObject, RpcId } from '../../trace/jsonrpc.js';
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
  const wireForm = options.wireForm ?? ((message: JsonObject) => message);
  const gate = new FaultGate(plan, { liveId: options.liveId, scheduler });
  plan.start();

  /** Decides every request of a client message; false when the message must not reach the engine. */
  const arrive = (message: Json): boolean => {
    const { records, disconnect } = gate.arrive('', message);
    for (const record of records) onFault(record);
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
      const taken = gate.take('', message);
      if (taken === undefined) {
        channel.send(message);
        return;
      }
      // The engine answers a batch's requests one by one; a batch handed over whole is judged per answer.
      const answer = (taken.message ?? message) as JsonObject;
      deliverAnswer(
        taken.decision,
        taken.id,
        {
          pass: () => channel.send(answer),
          replace: (other) => channel.send(other),
          sendText: (text) => channel.sendText(answer, text),
          text: () => JSON.stringify(Array.isArray(answer) ? answer : wireForm(answer)),
          trickle: (rate) => channel.sendSlowly(answer, rate),
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
