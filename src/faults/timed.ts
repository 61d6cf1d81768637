import type { Scheduler } from '../base/scheduler.js';
import type { FaultPlan } from './plan.js';
import { type FaultRecord, timedRecord } from './records.js';

/**
 * Arms the plan's timed faults (a `disconnect` `after` a moment, naming no request): each fires once, `after` ms
 * from the plan's start, with its record. Returns a function that disarms the ones still waiting. The timers never
 * keep a process running by themselves.
 *
 * @example const disarm = armTimedFaults(plan, (record) => { log(record); connection.close(); }, realScheduler);
 */
export function armTimedFaults(
  plan: FaultPlan,
  fire: (record: FaultRecord) => void,
  scheduler: Scheduler,
): () => void {
  plan.start();
  const timers = plan.timed.map(({ rule }) => {
    const wait = Math.max(0, (rule.afterMs ?? 0) - plan.elapsed());
    return scheduler.setTimeout(() => fire(timedRecord(rule, plan.elapsed())), wait, { unref: true });
  });
  return () => {
    for (const timer of timers) scheduler.clearTimeout(timer);
  };
}
