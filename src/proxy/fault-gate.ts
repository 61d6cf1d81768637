import { realScheduler, type Scheduler } from '../base/scheduler.js';
import { FaultGate } from '../faults/gate.js';
import { type FaultOptions, faultPlan } from '../faults/options.js';
import type { FaultRecord } from '../faults/records.js';
import { armTimedFaults } from '../faults/timed.js';
import type { Json } from '../trace/types.js';

/**
 * The recording proxies' fault gate (see faults/gate.ts), opened from the command's options with its timed faults
 * armed, and the JSON reading both proxies use to feed it.
 */

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
  plan.start();
  const gate = new FaultGate(plan, { scheduler });
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
