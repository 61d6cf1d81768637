import type { Scheduler } from '../base/scheduler.js';
import { FaultPlan } from './plan.js';
import { type FaultInput, faultRules } from './profile.js';

/** The fault knobs every front door takes (replay over stdio and HTTP, replayTransport, the recording proxies). */
export interface FaultOptions {
  /**
   * Faults to inject: spec strings (`error=-32603@tools/call#3`, `latency=200~50`, `drop@tools/call:search%25`)
   * or their parts as objects (`{ after: '5s', kind: 'disconnect' }`) — or a FaultPlan made already, whose seed
   * and counts the caller keeps reading (`seed` is then the plan's). None: nothing is injected, at no cost.
   */
  faults?: readonly FaultInput[] | FaultPlan | undefined;
  /** The seed `%PERCENT` and latency jitter draw from: the same seed, the same faults. Default: a random one. */
  seed?: number | undefined;
}

/**
 * The plan for `options`, or undefined when no fault is given (front doors then leave their hot path alone).
 * Throws TapedeckError('usage') for a bad fault.
 *
 * @example const plan = faultPlan({ faults: ['drop@tools/call#2'], seed: 7 }); // plan?.seed === 7
 */
export function faultPlan(options: FaultOptions, scheduler?: Scheduler): FaultPlan | undefined {
  const { faults } = options;
  if (faults instanceof FaultPlan) return faults.rules.length === 0 ? undefined : faults;
  if (faults === undefined || faults.length === 0) return undefined;
  return new FaultPlan(faultRules(faults), { seed: options.seed, scheduler });
}
